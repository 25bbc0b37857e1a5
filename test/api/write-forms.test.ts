// D2: `WRITE_FORM=transaction` sends the record write as single-shard statements in one transaction
// (the form Citus routes); `statement` (the default) as one statement. Both answer every write the
// same way: what is stored, the refusals (W2, W4, W9), idempotency (W8), a failure half way (W5),
// numbering under concurrency (L2), imports (I3, I4). On PostgreSQL this file runs on the layout
// hash-partitioned by agent, Citus' rules (D3).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertMemory } from '../../src/records/record-write.js';
import { RunNotRunningError } from '../../src/domain/errors.js';
import { writeMemory as storeWrite } from '../../src/service/write-memory.js';
import { WRITE_FORMS } from '../../src/store/write-form.js';
import { testDatabaseUrl } from '../support/env.js';
import {
  CREATE_MEMORY,
  createAgentFixture,
  runIdentity,
  startHarness,
  startRun,
  writeMemory,
  writeOk,
  type AgentFixture,
  type Harness,
} from '../support/harness.js';

const IMPORT = `mutation($input: [ImportMemoryInput!]!) {
  importMemories(input: $input) { id instruments links { linkType targetMemoryId } }
}`;
const READ = `query($id: UUID!) {
  memory(id: $id) {
    id type scope instruments content metadata
    provenance { runId producerId kind runStatus }
    links { linkType targetMemoryId }
  }
}`;

describe.each(WRITE_FORMS)('D2: WRITE_FORM=%s', (writeForm) => {
  let h: Harness;
  let fx: AgentFixture;
  let other: AgentFixture;
  let run: { runId: string; token: string };

  beforeAll(async () => {
    h = await startHarness({ writeForm });
    fx = await createAgentFixture(h, { instruments: ['BTC', 'ETH', 'SOL'] });
    other = await createAgentFixture(h, { instruments: ['BTC'] });
    run = await startRun(h, fx.producers.adhoc!.id);
  });
  afterAll(async () => {
    await h.close();
  });

  /** The agent's stored seqs in order, and its last number. */
  const numbering = async (agentId: string) => {
    const rows = await h.db.sql.query<{ seq: string }>(
      'SELECT m.seq::text AS seq FROM "Memory" m WHERE m."agentId" = $1 ORDER BY m.seq',
      [agentId],
    );
    const [agent] = await h.db.sql.query<{ lastSeq: string }>(
      'SELECT "lastSeq"::text AS "lastSeq" FROM "Agent" WHERE id = $1',
      [agentId],
    );
    return { seqs: rows.map((row) => Number(row.seq)), lastSeq: Number(agent!.lastSeq) };
  };
  const contiguous = (seqs: number[]) => seqs.every((seq, index) => seq === index + 1);
  const finish = (runId: string) =>
    h.ok('mutation($r: UUID!) { finishRun(runId: $r, status: SUCCEEDED) { status } }', { r: runId });
  /** W5: a trigger makes the insert of a link of `linkType` fail, after the record row is in. */
  const failLinksOfType = async (linkType: string) => {
    await h.db.prisma.$executeRawUnsafe(`
      CREATE OR REPLACE FUNCTION test_fail_form_link() RETURNS trigger AS $$
      BEGIN RAISE EXCEPTION 'secret_form_detail'; END $$ LANGUAGE plpgsql`);
    await h.db.prisma.$executeRawUnsafe(`
      CREATE TRIGGER test_fail_form_link BEFORE INSERT ON "MemoryLink" FOR EACH ROW
      WHEN (NEW."linkType" = '${linkType}') EXECUTE FUNCTION test_fail_form_link()`);
  };
  const stopFailingLinks = () =>
    h.db.prisma.$executeRawUnsafe('DROP TRIGGER test_fail_form_link ON "MemoryLink"');

  it('W1, W4: a record with targets and links is stored as the write answered, provenance included', async () => {
    const first = await writeOk(h, run.token, { type: 'note', scope: 'AGENT', content: 'first' });
    const second = await writeOk(h, run.token, { type: 'note', scope: 'AGENT', content: 'second' });
    const written = await writeOk(h, run.token, {
      type: 'funding',
      scope: 'INSTRUMENTS',
      instruments: ['ETH', 'BTC'],
      content: 'funding turns',
      metadata: { basis: 3 },
      links: [
        { targetMemoryId: first.id, linkType: 'supports' },
        { targetMemoryId: second.id, linkType: 'corrects' },
      ],
    });
    const { memory } = await h.ok<{ memory: Record<string, any> }>(
      READ,
      { id: written.id },
      fx.operatorToken,
    );
    expect(memory).toEqual({
      id: written.id,
      type: 'funding',
      scope: 'INSTRUMENTS',
      instruments: ['ETH', 'BTC'],
      content: 'funding turns',
      metadata: written.metadata,
      provenance: {
        runId: run.runId,
        producerId: fx.producers.adhoc!.id,
        kind: 'ANALYSIS',
        runStatus: 'RUNNING',
      },
      links: [
        { linkType: 'supports', targetMemoryId: first.id },
        { linkType: 'corrects', targetMemoryId: second.id },
      ],
    });
    expect(written.links).toEqual(memory.links);
  });

  it('W2, W4: a bad target or link is refused with its index; nothing is stored and no number is used', async () => {
    const before = await numbering(fx.agentId);
    const foreign = await writeOk(h, (await startRun(h, other.producers.adhoc!.id)).token, {
      type: 'note',
      scope: 'AGENT',
      content: 'another agent',
    });
    const mine = await writeOk(h, run.token, { type: 'note', scope: 'AGENT', content: 'mine' });
    const target = await writeMemory(h, run.token, {
      type: 'note',
      scope: 'INSTRUMENTS',
      instruments: ['BTC', 'DOGE'],
      content: 'unselected',
    });
    expect(target).toMatchObject({ __typename: 'InvalidMemoryTarget', instrumentIndex: 1 });
    const link = await writeMemory(h, run.token, {
      type: 'note',
      scope: 'AGENT',
      content: 'foreign link',
      links: [
        { targetMemoryId: mine.id, linkType: 'supports' },
        { targetMemoryId: foreign.id, linkType: 'supports' },
      ],
    });
    expect(link).toMatchObject({ __typename: 'InvalidMemoryLink', linkIndex: 1 });
    const after = await numbering(fx.agentId);
    expect(after.seqs).toEqual([...before.seqs, before.lastSeq + 1]); // only `mine`
    expect(after.lastSeq).toBe(before.lastSeq + 1);
  });

  it('W9: the write itself refuses a run that finished after its caller was resolved', async () => {
    const late = await startRun(h, fx.producers.adhoc!.id);
    const identity = await runIdentity(h, late.runId); // resolved while RUNNING
    await finish(late.runId);
    await expect(
      storeWrite(
        { db: h.db, events: h.events, now: () => new Date() },
        identity,
        { type: 'note', scope: 'AGENT', content: 'late' },
        'graphql',
      ),
    ).rejects.toBeInstanceOf(RunNotRunningError);
    expect(await h.db.prisma.memory.count({ where: { sourceRunId: late.runId } })).toBe(0);
  });

  it('W9: writes racing finishRun: every stored record was acknowledged, none is after finishedAt', async () => {
    const racing = await startRun(h, fx.producers.adhoc!.id);
    const answers: Promise<{ stored: string | null; refused: boolean }>[] = [];
    for (let i = 0; i < 60; i++) {
      answers.push(
        h
          .gql<{ createMemory: { memory?: { id: string } } }>(
            CREATE_MEMORY,
            { input: { type: 'note', scope: 'INSTRUMENTS', instruments: ['BTC'], content: `race ${i}` } },
            racing.token,
          )
          .then((result) => ({
            stored: result.data?.createMemory?.memory?.id ?? null,
            refused: result.errors?.[0]?.extensions?.code === 'UNAUTHENTICATED',
          })),
      );
      if (i === 30) answers.push(finish(racing.runId).then(() => ({ stored: null, refused: false })));
    }
    const settled = await Promise.all(answers);
    const { finishedAt } = await h.db.prisma.run.findFirstOrThrow({ where: { id: racing.runId } });
    const rows = await h.db.prisma.memory.findMany({ where: { sourceRunId: racing.runId } });
    expect(new Set(rows.map((row) => row.id))).toEqual(
      new Set(settled.flatMap((answer) => (answer.stored ? [answer.stored] : []))),
    );
    expect(settled.filter((answer) => !answer.stored && !answer.refused)).toHaveLength(1); // finishRun
    for (const row of rows) expect(row.createdAt.getTime()).toBeLessThanOrEqual(finishedAt!.getTime());
  });

  it('W8: a retry returns the original record; the same key with other input conflicts', async () => {
    const input = { type: 'note', scope: 'AGENT', content: 'once', idempotencyKey: `forms-${writeForm}` };
    const original = await writeOk(h, run.token, input);
    expect((await writeOk(h, run.token, input)).id).toBe(original.id);
    const conflict = await writeMemory(h, run.token, { ...input, content: 'twice' });
    expect(conflict).toMatchObject({ __typename: 'IdempotencyConflict' });
    const racing = await Promise.all(
      Array.from({ length: 10 }, () =>
        writeOk(h, run.token, { ...input, idempotencyKey: `race-${writeForm}` }),
      ),
    );
    expect(new Set(racing.map((record) => record.id)).size).toBe(1);
  });

  it('W5: a failure after the record row is inserted leaves nothing behind, its number unused', async () => {
    const target = await writeOk(h, run.token, { type: 'note', scope: 'AGENT', content: 'target' });
    await failLinksOfType('explode');
    try {
      const before = {
        numbering: await numbering(fx.agentId),
        targets: await h.db.prisma.memoryTarget.count(),
      };
      const result = await h.gql(
        CREATE_MEMORY,
        {
          input: {
            type: 'note',
            scope: 'INSTRUMENTS',
            instruments: ['BTC'],
            content: 'half',
            links: [{ targetMemoryId: target.id, linkType: 'explode' }],
          },
        },
        run.token,
      );
      expect(result.errors?.[0]?.extensions?.code).toBe('INTERNAL_SERVER_ERROR');
      expect(JSON.stringify(result)).not.toContain('secret_form_detail');
      expect({
        numbering: await numbering(fx.agentId),
        targets: await h.db.prisma.memoryTarget.count(),
      }).toEqual(before);
    } finally {
      await stopFailingLinks();
    }
    const next = await writeOk(h, run.token, { type: 'note', scope: 'AGENT', content: 'after' });
    const { seqs } = await numbering(fx.agentId);
    expect(contiguous(seqs)).toBe(true);
    const [last] = await h.db.sql.query<{ id: string }>(
      'SELECT id::text AS id FROM "Memory" WHERE "agentId" = $1 ORDER BY seq DESC LIMIT 1',
      [fx.agentId],
    );
    expect(last!.id).toBe(next.id);
  });

  it('L2: concurrent writes, some refused and some failing after their number, leave no gap or repeat', async () => {
    const target = await writeOk(h, run.token, { type: 'note', scope: 'AGENT', content: 'target' });
    await failLinksOfType('explode');
    try {
      // Every fifth is refused before it is numbered (an unselected target), every fifth fails after
      // (its link insert raises).
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          h.gql<{ createMemory: { __typename: string } }>(
            CREATE_MEMORY,
            {
              input: {
                type: 'note',
                scope: 'INSTRUMENTS',
                instruments: i % 5 === 3 ? ['DOGE'] : ['SOL'],
                content: `concurrent ${i}`,
                links: i % 5 === 4 ? [{ targetMemoryId: target.id, linkType: 'explode' }] : [],
              },
            },
            run.token,
          ),
        ),
      );
      const kinds = answers.map(
        (answer) => answer.data?.createMemory?.__typename ?? answer.errors?.[0]?.extensions?.code,
      );
      expect(kinds.filter((kind) => kind === 'CreateMemorySuccess')).toHaveLength(18);
      expect(kinds.filter((kind) => kind === 'InvalidMemoryTarget')).toHaveLength(6);
      expect(kinds.filter((kind) => kind === 'INTERNAL_SERVER_ERROR')).toHaveLength(6);
    } finally {
      await stopFailingLinks();
    }
    const { seqs, lastSeq } = await numbering(fx.agentId);
    expect(contiguous(seqs)).toBe(true);
    expect(lastSeq).toBe(seqs.length);
  });

  it('I3, I4: an import links earlier records; one bad item stores nothing of its batch', async () => {
    const stored = await writeOk(h, run.token, { type: 'x', scope: 'AGENT', content: 'stored' });
    const item = (extra: Record<string, unknown> = {}) => ({
      agentId: fx.agentId,
      type: 'ema_handoff',
      scope: 'INSTRUMENTS',
      instruments: ['ETH'],
      content: 'legacy',
      createdAt: '2026-01-01T06:00:00Z',
      ...extra,
    });
    const batch = await h.ok<{ importMemories: { id: string; links: unknown[] }[] }>(IMPORT, {
      input: [item({ links: [{ targetMemoryId: stored.id, linkType: 'evidence' }] }), item()],
    });
    expect(batch.importMemories[0]!.links).toEqual([{ linkType: 'evidence', targetMemoryId: stored.id }]);
    const before = await numbering(fx.agentId);
    const refused = await h.gql(IMPORT, { input: [item(), item({ instruments: ['NOPE'] })] });
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_memory_target', index: 1 });
    expect(await numbering(fx.agentId)).toEqual(before);
    expect(contiguous(before.seqs)).toBe(true);
  });
  it('D2, W5: the statements of the transaction form run only inside a transaction', async () => {
    const row = {
      id: randomUUID(),
      agentId: fx.agentId,
      type: 'note',
      scope: 'AGENT' as const,
      content: 'outside',
      metadata: {},
      timeframe: null,
      sourceRunId: run.runId,
      producerId: fx.producers.adhoc!.id,
      runKind: 'ANALYSIS' as const,
      createdAt: new Date(),
      expiresAt: null,
      expiryPolicy: null,
      idempotencyKey: null,
      requestHash: null,
      instruments: [],
      links: [],
    };
    const before = await numbering(fx.agentId);
    await expect(insertMemory(h.db.writeSql, row, 'write', 'transaction')).rejects.toThrow(
      /inside Database.sqlTransaction/,
    );
    expect(await numbering(fx.agentId)).toEqual(before);
    const seq = await h.db.sqlTransaction((sql) => insertMemory(sql, row, 'write', 'transaction'));
    expect(seq).toBe(before.lastSeq + 1);
  });

  describe.skipIf(!testDatabaseUrl)('S7 (PostgreSQL)', () => {
    let slow: Harness;
    beforeAll(async () => {
      slow = await startHarness({ writeForm, statementTimeoutMs: 200 }); // writes: 5 × 200 ms
    });
    afterAll(async () => {
      await slow?.close();
    });

    it('S7: a write past its bound answers QUERY_TIMEOUT and stores nothing', async () => {
      const agent = await createAgentFixture(slow, { instruments: ['BTC'] });
      const writer = await startRun(slow, agent.producers.adhoc!.id);
      const target = await writeOk(slow, writer.token, { type: 'note', scope: 'AGENT', content: 'target' });
      await slow.db.prisma.$executeRawUnsafe(`
        CREATE OR REPLACE FUNCTION test_slow_form_link() RETURNS trigger AS $$
        BEGIN PERFORM pg_sleep(3); RETURN NEW; END $$ LANGUAGE plpgsql`);
      await slow.db.prisma.$executeRawUnsafe(`
        CREATE TRIGGER test_slow_form_link BEFORE INSERT ON "MemoryLink" FOR EACH ROW
        WHEN (NEW."linkType" = 'slow') EXECUTE FUNCTION test_slow_form_link()`);
      const before = await slow.db.prisma.memory.count();
      const result = await slow.gql(
        CREATE_MEMORY,
        {
          input: {
            type: 'note',
            scope: 'AGENT',
            content: 'too slow',
            links: [{ targetMemoryId: target.id, linkType: 'slow' }],
          },
        },
        writer.token,
      );
      expect(result.errors?.[0]?.extensions?.code).toBe('QUERY_TIMEOUT');
      expect(await slow.db.prisma.memory.count()).toBe(before);
    });
  });
});

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CREATE_MEMORY,
  createAgentFixture,
  startHarness,
  startRun,
  writeMemory,
  writeOk,
  type AgentFixture,
  type Harness,
} from '../support/harness.js';

let h: Harness;
let fx: AgentFixture;
let other: AgentFixture;
let analysis: { runId: string; token: string };
let adhoc: { runId: string; token: string };
let trading: { runId: string; token: string };
let review: { runId: string; token: string };

const LINK_MESSAGE = (i: number) =>
  `links[${i}].target_memory_id is unavailable; copy the exact ID from authorized same-agent context and retry once`;

beforeAll(async () => {
  h = await startHarness();
  fx = await createAgentFixture(h, { instruments: ['BTC', 'ETH', 'SOL', 'DOGE'] });
  await h.ok('mutation { upsertInstrument(input: { id: "DOGE", active: false }) { id } }'); // delisted after selection
  other = await createAgentFixture(h, { instruments: ['BTC', 'ETH'] });
  analysis = await startRun(h, fx.producers.analysis!.id, '2026-01-01T12:00:00Z');
  adhoc = await startRun(h, fx.producers.adhoc!.id);
  trading = await startRun(h, fx.producers.trading!.id);
  review = await startRun(h, fx.producers.review!.id);
});
afterAll(async () => {
  await h.close();
});

const note = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: 'ema_handoff',
  scope: 'INSTRUMENTS',
  instruments: ['ETH'],
  content: 'ETH 5m bearish',
  ...extra,
});

async function memoryCount(): Promise<number> {
  return h.db.prisma.memory.count();
}

describe('createMemory — scope, targets and provenance (W1–W3)', () => {
  it('W1: AGENT scope with targets is a validation error; INSTRUMENTS needs 1..32 distinct targets', async () => {
    const before = await memoryCount();
    const withTargets = await writeMemory(h, adhoc.token, note({ scope: 'AGENT', instruments: ['ETH'] }));
    expect(withTargets).toMatchObject({
      __typename: 'MemoryValidationError',
      code: 'validation_error',
      field: 'instruments',
    });
    const none = await writeMemory(h, adhoc.token, note({ instruments: [] }));
    expect(none).toMatchObject({ __typename: 'MemoryValidationError', field: 'instruments' });
    const dup = await writeMemory(h, adhoc.token, note({ instruments: ['ETH', 'ETH'] }));
    expect(dup).toMatchObject({ __typename: 'MemoryValidationError', field: 'instruments' });
    expect(await memoryCount()).toBe(before);
    const agentWide = await writeOk(h, adhoc.token, {
      type: 'market_regime',
      scope: 'AGENT',
      content: 'risk-on',
    });
    expect(agentWide.instruments).toEqual([]);
  });

  it('W2: unknown, lowercase, -PERP, inactive and unselected instruments fail with the index of the first bad one', async () => {
    const before = await memoryCount();
    for (const [instruments, index] of [
      [['BTC', 'XYZ'], 1],
      [['eth'], 0],
      [['BTC', 'SOL', 'ETH-PERP'], 2],
      [['BTC', 'DOGE'], 1], // selected but inactive
    ] as const) {
      const result = await writeMemory(h, adhoc.token, note({ instruments }));
      expect(result).toMatchObject({
        __typename: 'InvalidMemoryTarget',
        code: 'invalid_memory_target',
        instrumentIndex: index,
      });
    }
    await h.ok('mutation { upsertInstrument(input: { id: "AVAX" }) { id } }'); // in the catalog, not selected
    const unselected = await writeMemory(h, adhoc.token, note({ instruments: ['AVAX'] }));
    expect(unselected).toMatchObject({ __typename: 'InvalidMemoryTarget', instrumentIndex: 0 });
    expect(await memoryCount()).toBe(before);
  });

  it('W2/W3: a deselected instrument refuses new targets, while older records keep listing it', async () => {
    const agent = await createAgentFixture(h, { instruments: ['BTC', 'SOL'] });
    const run = await startRun(h, agent.producers.adhoc!.id);
    const kept = await writeOk(h, run.token, note({ instruments: ['SOL', 'BTC'] }));
    await h.ok('mutation($a: UUID!) { setAgentInstruments(agentId: $a, instrumentIds: ["BTC"]) { id } }', {
      a: agent.agentId,
    });
    const refused = await writeMemory(h, run.token, note({ instruments: ['BTC', 'SOL'] }));
    expect(refused).toMatchObject({ __typename: 'InvalidMemoryTarget', instrumentIndex: 1 });
    const { memory } = await h.ok<{ memory: { instruments: string[] } }>(
      'query($id: UUID!) { memory(id: $id) { instruments } }',
      {
        id: kept.id,
      },
    );
    expect(memory.instruments).toEqual(['SOL', 'BTC']); // written order, still attached
  });

  it('provenance comes from the run token, never from the input', async () => {
    const memory = await writeOk(
      h,
      analysis.token,
      note({ metadata: { run_id: randomUUID(), producer: 'forged' } }),
    );
    expect(memory.provenance).toEqual({
      runId: analysis.runId,
      producerId: fx.producers.analysis!.id,
      producerName: 'analysis',
      kind: 'ANALYSIS',
      schedule: '5m',
      evidenceBoundary: '2026-01-01T12:00:00.000Z',
      runStatus: 'RUNNING',
    });
    expect(memory.agentId).toBe(fx.agentId);
  });
  it('the write answers with exactly what a later read of the record returns', async () => {
    const target = await writeOk(h, adhoc.token, note());
    const written = await writeOk(
      h,
      analysis.token,
      note({
        instruments: ['SOL', 'ETH'],
        timeframe: '5m',
        links: [{ targetMemoryId: target.id.toUpperCase(), linkType: 'evidence' }],
      }),
    );
    const fields = CREATE_MEMORY.slice(
      CREATE_MEMORY.indexOf('memory {') + 'memory '.length,
      CREATE_MEMORY.indexOf('}\n      }') + 1,
    );
    const read = await h.ok<{ memory: Record<string, unknown> }>(
      `query($id: UUID!) { memory(id: $id) ${fields} }`,
      { id: written.id },
    );
    expect(written).toEqual(read.memory);
  });
});

describe('createMemory — links (W4) and atomicity (W5)', () => {
  it('W4: a nonexistent id and another agent’s id get the same answer, with the exact message and index', async () => {
    const own = await writeOk(h, adhoc.token, note());
    const otherRun = await startRun(h, other.producers.adhoc!.id);
    const foreign = await writeOk(h, otherRun.token, note());
    const answers = [];
    for (const target of [randomUUID(), foreign.id]) {
      answers.push(
        await writeMemory(
          h,
          adhoc.token,
          note({
            links: [
              { targetMemoryId: own.id, linkType: 'evidence' },
              { targetMemoryId: target, linkType: 'evidence' },
            ],
          }),
        ),
      );
    }
    expect(answers[0]).toEqual(answers[1]);
    expect(answers[0]).toEqual({
      __typename: 'InvalidMemoryLink',
      code: 'invalid_memory_link',
      message: LINK_MESSAGE(1),
      linkIndex: 1,
    });
  });

  it('W4: a malformed UUID is a variable validation error, not a write error', async () => {
    const result = await h.gql(
      CREATE_MEMORY,
      { input: note({ links: [{ targetMemoryId: 'not-a-uuid', linkType: 'evidence' }] }) },
      adhoc.token,
    );
    expect(result.data).toBeUndefined();
    expect(result.errors?.[0]?.message).toMatch(/UUID/);
  });

  it('W4: links are stored in order and returned; duplicates and 65 links are validation errors', async () => {
    const a = await writeOk(h, adhoc.token, note());
    const b = await writeOk(h, adhoc.token, note());
    const linked = await writeOk(
      h,
      adhoc.token,
      note({
        links: [
          { targetMemoryId: b.id, linkType: 'evidence' },
          { targetMemoryId: a.id, linkType: 'corrects' },
        ],
      }),
    );
    expect(linked.links).toEqual([
      { targetMemoryId: b.id, linkType: 'evidence' },
      { targetMemoryId: a.id, linkType: 'corrects' },
    ]);
    const dup = await writeMemory(
      h,
      adhoc.token,
      note({
        links: [
          { targetMemoryId: a.id, linkType: 'evidence' },
          { targetMemoryId: a.id, linkType: 'evidence' },
        ],
      }),
    );
    expect(dup).toMatchObject({ __typename: 'MemoryValidationError', field: 'links[1]' });
    const many = Array.from({ length: 65 }, () => ({ targetMemoryId: randomUUID(), linkType: 'evidence' }));
    expect(await writeMemory(h, adhoc.token, note({ links: many }))).toMatchObject({
      __typename: 'MemoryValidationError',
      field: 'links',
    });
  });

  it('W5: a database failure after the record row is inserted leaves nothing behind and leaks nothing', async () => {
    const target = await writeOk(h, adhoc.token, note());
    // A trigger makes the link insert fail inside the write transaction, after the memory and target rows.
    await h.db.prisma.$executeRawUnsafe(`
      CREATE OR REPLACE FUNCTION test_fail_link() RETURNS trigger AS $$
      BEGIN RAISE EXCEPTION 'secret_internal_detail_xyz' USING CONSTRAINT = 'secret_constraint_name'; END $$ LANGUAGE plpgsql`);
    await h.db.prisma.$executeRawUnsafe(`
      CREATE TRIGGER test_fail_link BEFORE INSERT ON "MemoryLink" FOR EACH ROW
      WHEN (NEW."linkType" = 'explode') EXECUTE FUNCTION test_fail_link()`);
    try {
      const before = { memories: await memoryCount(), targets: await h.db.prisma.memoryTarget.count() };
      const result = await h.gql(
        CREATE_MEMORY,
        { input: note({ links: [{ targetMemoryId: target.id, linkType: 'explode' }] }) },
        adhoc.token,
      );
      expect(result.errors?.[0]?.extensions?.code).toBe('INTERNAL_SERVER_ERROR');
      const text = JSON.stringify(result);
      for (const secret of [
        'secret_internal_detail_xyz',
        'secret_constraint_name',
        'MemoryLink',
        'INSERT',
        'at ',
      ]) {
        expect(text).not.toContain(secret);
      }
      expect({ memories: await memoryCount(), targets: await h.db.prisma.memoryTarget.count() }).toEqual(
        before,
      );

      const rest = await h.fetch('/api/v1/memories', {
        method: 'POST',
        headers: { authorization: `Bearer ${adhoc.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          type: 'x',
          scope: 'AGENT',
          content: 'c',
          links: [{ target_memory_id: target.id, link_type: 'explode' }],
        }),
      });
      expect(rest.status).toBe(500);
      expect(await rest.json()).toEqual({ error: 'internal error', code: 'internal_error' });
      expect(await memoryCount()).toBe(before.memories);
    } finally {
      await h.db.prisma.$executeRawUnsafe('DROP TRIGGER test_fail_link ON "MemoryLink"');
    }
  });
});

describe('createMemory — types and limits (W6, W7)', () => {
  it('W6: reserved types are refused from every wrong run kind and accepted from the right one', async () => {
    const cases: [string, { token: string }, boolean][] = [
      ['trading_decision', analysis, false],
      ['trading_decision', review, false],
      ['trading_decision', trading, true],
      ['review', analysis, false],
      ['review', trading, false],
      ['review', review, true],
      ['agent_learnings', analysis, false],
      ['agent_learnings', trading, false],
      ['agent_learnings', review, true],
    ];
    for (const [type, run, allowed] of cases) {
      const result = await writeMemory(h, run.token, { type, scope: 'AGENT', content: 'x' });
      expect(result.__typename, `${type}`).toBe(allowed ? 'CreateMemorySuccess' : 'ReservedMemoryType');
      if (!allowed) expect(result.code).toBe('reserved_memory_type');
    }
  });

  it('W6: Analysis may write any valid custom type; invalid type names are validation errors', async () => {
    expect(
      (await writeOk(h, adhoc.token, { type: 'orderflow_imbalance_v3', scope: 'AGENT', content: 'x' })).type,
    ).toBe('orderflow_imbalance_v3');
    for (const type of ['Ema', '1abc', 'a-b', 'x'.repeat(65), '']) {
      expect(await writeMemory(h, adhoc.token, { type, scope: 'AGENT', content: 'x' })).toMatchObject({
        __typename: 'MemoryValidationError',
        field: 'type',
      });
    }
  });

  it('W7: content, metadata, timeframe limits answer with a validation error naming the field', async () => {
    const before = await memoryCount();
    const deep: Record<string, unknown> = {};
    let cursor = deep;
    for (let i = 0; i < 100; i++) cursor = (cursor.n = {}) as Record<string, unknown>;
    const cases: [Record<string, unknown>, string][] = [
      [{ content: '' }, 'content'],
      [{ content: 'x'.repeat(65_537) }, 'content'],
      [{ metadata: [1, 2] }, 'metadata'],
      [{ metadata: 'text' }, 'metadata'],
      [{ metadata: { blob: 'x'.repeat(300 * 1024) } }, 'metadata'],
      [{ metadata: deep }, 'metadata'],
      [{ timeframe: '5 minutes' }, 'timeframe'],
    ];
    for (const [extra, field] of cases) {
      expect(await writeMemory(h, adhoc.token, note(extra))).toMatchObject({
        __typename: 'MemoryValidationError',
        field,
      });
    }
    expect(await memoryCount()).toBe(before);
    const longest = await writeOk(h, adhoc.token, note({ content: 'x'.repeat(65_536) }));
    expect(longest.content).toHaveLength(65_536);
  });

  it('W7: content and metadata within the limits whose search document PostgreSQL cannot hold (over 1 MiB) are a validation error, not a 500', async () => {
    // Hyphenated words of single letters: every part and every compound is a lexeme of its own.
    const words = (letters: string[], perWord: number) =>
      Array.from({ length: Math.ceil(letters.length / perWord) }, (_, i) =>
        letters.slice(i * perWord, (i + 1) * perWord).join('-'),
      ).join(' ');
    const range = (from: number, count: number) =>
      Array.from({ length: count }, (_, i) => String.fromCodePoint(from + i));
    // 65,535 code points of 4-byte CJK letters (W7 counts code points).
    const content = words(range(0x20000, 32_768), 400);
    const pairs = range(0x4e00, 20_000).map((letter, i) => letter + String.fromCodePoint(0xac00 + (i % 7)));
    const letters = [...range(0x4e00, 20_992), ...range(0xac00, 11_172), ...range(0x3400, 6_592)];
    let text = `${words(letters, 500)} ${words(pairs, 250)}`;
    while (Buffer.byteLength(JSON.stringify({ t: text })) > 256 * 1024) text = text.slice(0, -1000);
    const before = await memoryCount();
    expect(await writeMemory(h, adhoc.token, note({ content, metadata: { t: text } }))).toMatchObject({
      __typename: 'MemoryValidationError',
      field: 'content',
    });
    expect(await memoryCount()).toBe(before);
    // Either part alone is searchable.
    await writeOk(h, adhoc.token, note({ content }));
    await writeOk(h, adhoc.token, note({ content: 'x', metadata: { t: text } }));
  });
});

describe('createMemory — expiry (X1–X6)', () => {
  it('X1/X2/X5: Analysis expiry is stamped from the run schedule and boundary, overriding caller values', async () => {
    h.clock.set('2026-01-01T12:01:10Z');
    const memory = await writeOk(
      h,
      analysis.token,
      note({
        timeframe: '1h',
        metadata: {
          stale_after: '2030-01-01T00:00:00Z',
          valid_for_seconds: 'abc',
          expiry_policy: 'mine',
          keep: 1,
        },
      }),
    );
    h.clock.real();
    expect(memory.metadata).toEqual({
      stale_after: '2026-01-01T12:10:00.000Z',
      expiry_policy: 'analysis_schedule_v2',
      keep: 1,
    });
    expect(memory.expiresAt).toBe('2026-01-01T12:10:00.000Z');
    expect(memory.expiryPolicy).toBe('analysis_schedule_v2');
  });

  it('X3: an unscheduled Analysis run expires 30 minutes after publication', async () => {
    h.clock.set('2026-02-01T09:00:00Z');
    const result = await writeMemory(h, adhoc.token, note({ metadata: { expiry_policy: 'mine' } }));
    h.clock.real();
    expect(result.expiresAt).toBe('2026-02-01T09:30:00.000Z');
    expect(result.memory.metadata).toEqual({
      stale_after: '2026-02-01T09:30:00.000Z',
      expiry_policy: 'analysis_schedule_v2',
    });
  });

  it('X4: a late publication is stored already stale', async () => {
    const run = await startRun(h, fx.producers.analysis!.id, '2026-03-01T12:00:00Z');
    h.clock.set('2026-03-01T12:31:00Z');
    const memory = await writeOk(h, run.token, note());
    h.clock.real();
    expect(memory.expiresAt).toBe('2026-03-01T12:10:00.000Z');
    expect(memory.freshness).toBe('STALE');
  });

  it('X6: Trading/Review keep explicit validity; malformed values are validation errors', async () => {
    h.clock.set('2026-04-01T10:00:00Z');
    const decision = await writeOk(h, trading.token, {
      type: 'trading_decision',
      scope: 'INSTRUMENTS',
      instruments: ['ETH'],
      content: 'no trade',
      metadata: { valid_for_seconds: 600 },
    });
    expect(decision.expiresAt).toBe('2026-04-01T10:10:00.000Z');
    const both = await writeOk(h, review.token, {
      type: 'review',
      scope: 'AGENT',
      content: 'r',
      metadata: { valid_for_seconds: 600, stale_after: '2026-04-02T00:00:00Z' },
    });
    expect(both.expiresAt).toBe('2026-04-02T00:00:00.000Z');
    const never = await writeOk(h, review.token, { type: 'agent_learnings', scope: 'AGENT', content: 'l' });
    expect(never.expiresAt).toBeNull();
    const bad = await writeMemory(h, trading.token, {
      type: 'trading_decision',
      scope: 'AGENT',
      content: 'x',
      metadata: { stale_after: 'yesterday' },
    });
    expect(bad).toMatchObject({ __typename: 'MemoryValidationError', field: 'metadata.stale_after' });
    const badSeconds = await writeMemory(h, trading.token, {
      type: 'trading_decision',
      scope: 'AGENT',
      content: 'x',
      metadata: { valid_for_seconds: 0 },
    });
    expect(badSeconds).toMatchObject({
      __typename: 'MemoryValidationError',
      field: 'metadata.valid_for_seconds',
    });
    h.clock.real();
  });
});

describe('createMemory — idempotency (W8)', () => {
  it('W8: a retry with the same key and input returns the original record; different input conflicts', async () => {
    const input = note({ idempotencyKey: `k-${randomUUID()}`, metadata: { a: 1, b: [1, 2] } });
    const first = await writeOk(h, adhoc.token, input);
    const reordered = { ...input, metadata: { b: [1, 2], a: 1 } };
    const retry = await writeOk(h, adhoc.token, reordered);
    expect(retry.id).toBe(first.id);
    expect(
      await h.db.prisma.memory.count({ where: { idempotencyKey: input.idempotencyKey as string } }),
    ).toBe(1);
    const conflict = await writeMemory(h, adhoc.token, { ...input, content: 'different' });
    expect(conflict).toMatchObject({ __typename: 'IdempotencyConflict', code: 'idempotency_conflict' });
  });

  it('W8: 50 concurrent identical writes with one key store one row', async () => {
    const input = note({ idempotencyKey: `c-${randomUUID()}` });
    const results = await Promise.all(Array.from({ length: 50 }, () => writeMemory(h, adhoc.token, input)));
    const ids = new Set(
      results.map((r) => (r.__typename === 'CreateMemorySuccess' ? r.memory.id : r.__typename)),
    );
    expect([...ids]).toHaveLength(1);
    expect(
      await h.db.prisma.memory.count({ where: { idempotencyKey: input.idempotencyKey as string } }),
    ).toBe(1);
  });

  it('W8: a Trading run reusing an Analysis key gets its own record — never the Analysis one, never a conflict', async () => {
    const key = `cross-${randomUUID()}`;
    const research = await writeOk(h, adhoc.token, note({ idempotencyKey: key }));
    const same = await writeMemory(h, trading.token, note({ idempotencyKey: key }));
    expect(same.__typename).toBe('CreateMemorySuccess');
    expect(same.memory.id).not.toBe(research.id);
    expect(same.memory.provenance.kind).toBe('TRADING');
    const different = await writeMemory(h, trading.token, note({ idempotencyKey: `${key}-2`, content: 'x' }));
    const reuse = await writeMemory(h, trading.token, note({ idempotencyKey: key, content: 'other' }));
    expect(different.__typename).toBe('CreateMemorySuccess');
    // The conflict is with the Trading producer's own earlier write, not with the Analysis record.
    expect(reuse).toMatchObject({ __typename: 'IdempotencyConflict' });
    expect(reuse.message).not.toContain(research.id);
  });

  it('W8: a later run of the same producer retrying a key gets the original record', async () => {
    const key = `later-${randomUUID()}`;
    const first = await writeOk(h, adhoc.token, note({ idempotencyKey: key }));
    const nextRun = await startRun(h, fx.producers.adhoc!.id);
    const retry = await writeOk(h, nextRun.token, note({ idempotencyKey: key }));
    expect(retry.id).toBe(first.id);
  });

  it('W8: keys are per agent and limited to 128 characters', async () => {
    const key = `shared-${randomUUID()}`;
    const otherRun = await startRun(h, other.producers.adhoc!.id);
    const mine = await writeOk(h, adhoc.token, note({ idempotencyKey: key }));
    const theirs = await writeOk(h, otherRun.token, note({ idempotencyKey: key }));
    expect(theirs.id).not.toBe(mine.id);
    expect(await writeMemory(h, adhoc.token, note({ idempotencyKey: 'k'.repeat(129) }))).toMatchObject({
      field: 'idempotencyKey',
    });
  });
});

describe('reading records', () => {
  it('operators and Review/Analysis runs of the agent read a record; another agent gets null', async () => {
    const memory = await writeOk(h, adhoc.token, note());
    const query = 'query($id: UUID!) { memory(id: $id) { id freshness } }';
    for (const token of [fx.operatorToken, review.token, analysis.token]) {
      expect(
        (await h.ok<{ memory: { id: string } | null }>(query, { id: memory.id }, token)).memory?.id,
      ).toBe(memory.id);
    }
    expect(
      (await h.ok<{ memory: unknown }>(query, { id: memory.id }, other.operatorToken)).memory,
    ).toBeNull();
  });

  it('Trading runs read only their own producer’s records (restricted context-only read)', async () => {
    const research = await writeOk(h, adhoc.token, note());
    const decision = await writeOk(h, trading.token, {
      type: 'trading_decision',
      scope: 'INSTRUMENTS',
      instruments: ['ETH'],
      content: 'd',
      links: [{ targetMemoryId: research.id, linkType: 'considered' }],
    });
    const query = 'query($id: UUID!) { memory(id: $id) { id } }';
    expect((await h.ok<{ memory: unknown }>(query, { id: research.id }, trading.token)).memory).toBeNull();
    expect(
      (await h.ok<{ memory: { id: string } }>(query, { id: decision.id }, trading.token)).memory.id,
    ).toBe(decision.id);
  });

  it('a finished run’s token can no longer write', async () => {
    const run = await startRun(h, fx.producers.adhoc!.id);
    await h.ok('mutation($r: UUID!) { finishRun(runId: $r, status: FAILED) { id } }', { r: run.runId });
    const result = await h.gql(CREATE_MEMORY, { input: note() }, run.token);
    expect(result.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('operators and admin cannot write (FORBIDDEN); no token is UNAUTHENTICATED', async () => {
    expect(
      (await h.gql(CREATE_MEMORY, { input: note() }, fx.operatorToken)).errors?.[0]?.extensions?.code,
    ).toBe('FORBIDDEN');
    expect((await h.gql(CREATE_MEMORY, { input: note() })).errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await h.gql(CREATE_MEMORY, { input: note() }, null)).errors?.[0]?.extensions?.code).toBe(
      'UNAUTHENTICATED',
    );
  });
});

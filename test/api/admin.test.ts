import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createAgentFixture, startHarness, startRun, type Harness } from '../support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

describe('admin operations', () => {
  it('creates agents, instruments, selections, producers and runs', async () => {
    const fx = await createAgentFixture(h, { instruments: ['BTC', 'ETH', 'kPEPE'] });
    const { memory } = await h.ok('{ memory(id: "00000000-0000-4000-8000-000000000000") { id } }');
    expect(memory).toBeNull();
    const selected = await h.db.prisma.agentInstrument.findMany({
      where: { agentId: fx.agentId, deselectedAt: null },
    });
    expect(selected.map((s) => s.instrumentId).sort()).toEqual(['BTC', 'ETH', 'kPEPE']);
  });

  it('setAgentInstruments replaces the set and keeps the history of deselections', async () => {
    const fx = await createAgentFixture(h, { instruments: ['BTC', 'ETH'] });
    const result = await h.ok<{ setAgentInstruments: { instruments: string[] } }>(
      'mutation($a: UUID!) { setAgentInstruments(agentId: $a, instrumentIds: ["ETH"]) { instruments } }',
      { a: fx.agentId },
    );
    expect(result.setAgentInstruments.instruments).toEqual(['ETH']);
    const history = await h.db.prisma.agentInstrument.findMany({
      where: { agentId: fx.agentId, instrumentId: 'BTC' },
    });
    expect(history).toHaveLength(1);
    expect(history[0]!.deselectedAt).not.toBeNull();
  });

  it('setAgentInstruments refuses an instrument outside the catalog and changes nothing', async () => {
    const fx = await createAgentFixture(h, { instruments: ['BTC'] });
    const result = await h.gql(
      'mutation($a: UUID!) { setAgentInstruments(agentId: $a, instrumentIds: ["BTC", "ETH-PERP"]) { id } }',
      {
        a: fx.agentId,
      },
    );
    expect(result.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'instrumentIds[1]',
    });
    const selected = await h.db.prisma.agentInstrument.count({
      where: { agentId: fx.agentId, deselectedAt: null },
    });
    expect(selected).toBe(1);
  });

  it('upsertInstrument refuses non-canonical spellings', async () => {
    const result = await h.gql('mutation { upsertInstrument(input: { id: "ETH-PERP" }) { id } }');
    expect(result.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('createProducer validates the schedule and names are unique per agent', async () => {
    const fx = await createAgentFixture(h, { producers: {} });
    const bad = await h.gql(
      'mutation($a: UUID!) { createProducer(input: { agentId: $a, kind: ANALYSIS, name: "x", schedule: "7m" }) { id } }',
      {
        a: fx.agentId,
      },
    );
    expect(bad.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'schedule' });
    await h.ok(
      'mutation($a: UUID!) { createProducer(input: { agentId: $a, kind: ANALYSIS, name: "x", schedule: "4h" }) { id } }',
      {
        a: fx.agentId,
      },
    );
    const dup = await h.gql(
      'mutation($a: UUID!) { createProducer(input: { agentId: $a, kind: REVIEW, name: "x" }) { id } }',
      {
        a: fx.agentId,
      },
    );
    expect(dup.errors?.[0]?.extensions).toMatchObject({ code: 'CONFLICT', field: 'name' });
  });

  it('setProducerEnabled keeps a history of changes', async () => {
    const fx = await createAgentFixture(h);
    const producerId = fx.producers.analysis!.id;
    for (const enabled of [false, true, true]) {
      await h.ok(
        'mutation($p: UUID!, $e: Boolean!) { setProducerEnabled(producerId: $p, enabled: $e) { enabled } }',
        {
          p: producerId,
          e: enabled,
        },
      );
    }
    const history = await h.db.prisma.producerEnablement.findMany({
      where: { producerId },
      orderBy: { changedAt: 'asc' },
    });
    expect(history.map((e) => e.enabled)).toEqual([true, false, true]);
  });

  it('startRun copies the schedule, needs an aligned boundary for scheduled producers and refuses one otherwise', async () => {
    const fx = await createAgentFixture(h);
    const scheduled = fx.producers.analysis!.id;
    const missing = await h.gql('mutation($p: UUID!) { startRun(input: { producerId: $p }) { token } }', {
      p: scheduled,
    });
    expect(missing.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'evidenceBoundary',
    });
    const unaligned = await h.gql(
      'mutation($p: UUID!) { startRun(input: { producerId: $p, evidenceBoundary: "2026-01-01T12:03:00Z" }) { token } }',
      {
        p: scheduled,
      },
    );
    expect(unaligned.errors?.[0]?.extensions).toMatchObject({ field: 'evidenceBoundary' });
    const unscheduled = await h.gql(
      'mutation($p: UUID!) { startRun(input: { producerId: $p, evidenceBoundary: "2026-01-01T12:00:00Z" }) { token } }',
      {
        p: fx.producers.adhoc!.id,
      },
    );
    expect(unscheduled.errors?.[0]?.extensions).toMatchObject({ field: 'evidenceBoundary' });
    const ok = await h.ok<{ startRun: { token: string; run: Record<string, unknown> } }>(
      'mutation($p: UUID!) { startRun(input: { producerId: $p, evidenceBoundary: "2026-01-01T12:00:00Z" }) { token run { kind schedule status evidenceBoundary } } }',
      { p: scheduled },
    );
    expect(ok.startRun.token).toMatch(/^run_/);
    expect(ok.startRun.run).toEqual({
      kind: 'ANALYSIS',
      schedule: '5m',
      status: 'RUNNING',
      evidenceBoundary: '2026-01-01T12:00:00.000Z',
    });
    expect(await h.db.prisma.run.count({ where: { tokenHash: ok.startRun.token } })).toBe(0); // only the hash is stored
  });

  it('finishRun ends a run once; its token stops working', async () => {
    const fx = await createAgentFixture(h);
    const run = await startRun(h, fx.producers.adhoc!.id);
    const before = await h.gql(
      '{ memory(id: "00000000-0000-4000-8000-000000000000") { id } }',
      {},
      run.token,
    );
    expect(before.errors).toBeUndefined();
    await h.ok('mutation($r: UUID!) { finishRun(runId: $r, status: SUCCEEDED) { status finishedAt } }', {
      r: run.runId,
    });
    const again = await h.gql('mutation($r: UUID!) { finishRun(runId: $r, status: FAILED) { status } }', {
      r: run.runId,
    });
    expect(again.errors?.[0]?.extensions?.code).toBe('CONFLICT');
    const after = await h.gql('{ memory(id: "00000000-0000-4000-8000-000000000000") { id } }', {}, run.token);
    expect(after.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });
});

describe('tokens and callers', () => {
  it('no token and unknown tokens are UNAUTHENTICATED', async () => {
    for (const token of [null, 'nope', 'run_doesnotexist', 'op_doesnotexist']) {
      const result = await h.gql('mutation { createAgent(input: { name: "x" }) { id } }', {}, token);
      expect(result.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    }
  });

  it('operator and run tokens cannot use admin operations (FORBIDDEN)', async () => {
    const fx = await createAgentFixture(h);
    const run = await startRun(h, fx.producers.adhoc!.id);
    for (const token of [fx.operatorToken, run.token]) {
      const result = await h.gql('mutation { createAgent(input: { name: "y" }) { id } }', {}, token);
      expect(result.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    }
  });

  it('only SHA-256 hashes of tokens are stored', async () => {
    const fx = await createAgentFixture(h);
    const rows = await h.db.prisma.operatorToken.findMany({ where: { agentId: fx.agentId } });
    expect(rows[0]!.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(rows[0]!.tokenHash).not.toContain(fx.operatorToken);
  });

  it('the admin token compares in constant time over hashes (a prefix is not enough)', async () => {
    const result = await h.gql(
      'mutation { createAgent(input: { name: "z" }) { id } }',
      {},
      ADMIN_TOKEN.slice(0, -1),
    );
    expect(result.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });
});

describe('health', () => {
  it('GET /healthz and /readyz answer JSON', async () => {
    expect(await (await h.fetch('/healthz')).json()).toEqual({ status: 'ok' });
    const ready = await h.fetch('/readyz');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready' });
  });
});

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

describe('operator tokens (S6)', () => {
  it('S6: createOperatorToken takes a label; the admin lists tokens; revoking keeps the first instant', async () => {
    const fx = await createAgentFixture(h, { instruments: ['ETH'] });
    const { createOperatorToken } = await h.ok<{
      createOperatorToken: { token: string; operatorToken: { id: string; label: string; revokedAt: null } };
    }>(
      'mutation($a: UUID!) { createOperatorToken(agentId: $a, label: " night desk ") { token operatorToken { id label revokedAt } } }',
      { a: fx.agentId },
    );
    expect(createOperatorToken.operatorToken).toMatchObject({ label: 'night desk', revokedAt: null });
    const id = createOperatorToken.operatorToken.id;
    h.clock.set('2026-11-30T10:00:00Z');
    const revoke = 'mutation($id: UUID!) { revokeOperatorToken(id: $id) { id revokedAt } }';
    const first = await h.ok<{ revokeOperatorToken: { revokedAt: string } }>(revoke, { id });
    h.clock.set('2026-11-30T11:00:00Z');
    const second = await h.ok<{ revokeOperatorToken: { revokedAt: string } }>(revoke, { id });
    h.clock.real();
    expect(first.revokeOperatorToken.revokedAt).toBe('2026-11-30T10:00:00.000Z');
    expect(second.revokeOperatorToken.revokedAt).toBe(first.revokeOperatorToken.revokedAt);
    const { agent } = await h.ok<{ agent: { operatorTokens: { id: string; revokedAt: string | null }[] } }>(
      'query($a: UUID!) { agent(id: $a) { operatorTokens { id revokedAt } } }',
      { a: fx.agentId },
    );
    expect(agent.operatorTokens.map((t) => t.id)).toContain(id);
    const revoked = await h.gql('{ viewer { kind } }', {}, createOperatorToken.token);
    expect(revoked.errors?.[0]).toMatchObject({ extensions: { code: 'UNAUTHENTICATED' } });
    expect(revoked.errors?.[0]?.message).toContain('revoked');
  });

  it('S6: only the admin sees or revokes operator tokens; an unknown id is NOT_FOUND', async () => {
    const fx = await createAgentFixture(h, { instruments: ['ETH'] });
    const tokens = await h.gql(
      'query($a: UUID!) { agent(id: $a) { operatorTokens { id } } }',
      { a: fx.agentId },
      fx.operatorToken,
    );
    expect(tokens.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const revoke = 'mutation($id: UUID!) { revokeOperatorToken(id: $id) { id } }';
    const unknown = await h.gql(revoke, { id: '00000000-0000-4000-8000-000000000000' });
    expect(unknown.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const byOperator = await h.gql(revoke, { id: '00000000-0000-4000-8000-000000000000' }, fx.operatorToken);
    expect(byOperator.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });
});

describe('viewer and agents', () => {
  it('viewer says who the token is; agents and agent(id) show operators and runs only their own agent (S1)', async () => {
    const a = await createAgentFixture(h, { instruments: ['ETH'] });
    const b = await createAgentFixture(h, { instruments: ['ETH'] });
    const run = await startRun(h, a.producers.trading!.id);
    const viewer = '{ viewer { kind agent { id } run { id } } }';
    expect((await h.ok(viewer)).viewer).toEqual({ kind: 'ADMIN', agent: null, run: null });
    expect((await h.ok(viewer, {}, a.operatorToken)).viewer).toEqual({
      kind: 'OPERATOR',
      agent: { id: a.agentId },
      run: null,
    });
    expect((await h.ok(viewer, {}, run.token)).viewer).toEqual({
      kind: 'RUN',
      agent: { id: a.agentId },
      run: { id: run.runId },
    });
    expect((await h.gql(viewer, {}, null)).errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');

    const agents = '{ agents { id } }';
    const all = (await h.ok<{ agents: { id: string }[] }>(agents)).agents.map((x) => x.id);
    expect(all).toEqual(expect.arrayContaining([a.agentId, b.agentId]));
    for (const token of [a.operatorToken, run.token]) {
      expect((await h.ok<{ agents: { id: string }[] }>(agents, {}, token)).agents).toEqual([
        { id: a.agentId },
      ]);
      const agent = 'query($id: UUID!) { agent(id: $id) { id } }';
      expect((await h.ok(agent, { id: a.agentId }, token)).agent).toEqual({ id: a.agentId });
      expect((await h.ok(agent, { id: b.agentId }, token)).agent).toBeNull();
    }
  });
});

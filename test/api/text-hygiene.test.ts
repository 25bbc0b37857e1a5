// W10 text hygiene: strings PostgreSQL cannot store as text are typed validation errors naming their
// field on every path (GraphQL, REST, import, reads, admin), never a 500; messages quote ≤ 100 chars.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
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
let run: { runId: string; token: string };

beforeAll(async () => {
  h = await startHarness();
  fx = await createAgentFixture(h, { instruments: ['BTC', 'ETH'] });
  run = await startRun(h, fx.producers.adhoc!.id);
});
afterAll(async () => {
  await h.close();
});

const NUL = '\u0000';
const LONG = 'x'.repeat(100_000);

const note = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: 'ema_handoff',
  scope: 'INSTRUMENTS',
  instruments: ['ETH'],
  content: 'ETH 5m bearish',
  ...extra,
});

/** Rows of every table a write touches: a refused write leaves all three unchanged (W5). */
async function rowCounts(): Promise<number[]> {
  return Promise.all([
    h.db.prisma.memory.count(),
    h.db.prisma.memoryTarget.count(),
    h.db.prisma.memoryLink.count(),
  ]);
}

function postRest(body: unknown) {
  return h.fetch('/api/v1/memories', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${run.token}` },
    body: JSON.stringify(body),
  });
}

/** Every error message of a GraphQL answer, serialised: what a client would see. */
const messagesOf = (result: { errors?: { message: string }[] }) =>
  (result.errors ?? []).map((e) => e.message);

describe('W10: writes (createMemory, REST, import)', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['content', { content: `a${NUL}b` }, 'content'],
    ['instruments', { instruments: [`ETH${NUL}`] }, 'instruments'],
    ['idempotencyKey', { idempotencyKey: `k${NUL}` }, 'idempotencyKey'],
    ['type', { type: `ema${NUL}` }, 'type'],
    ['timeframe', { timeframe: `5m${NUL}` }, 'timeframe'],
    ['content (lone surrogate)', { content: 'a\ud800b' }, 'content'],
  ];
  for (const [name, extra, field] of cases) {
    it(`W10: ${name} with U+0000 or a lone surrogate is a validation error naming ${field}`, async () => {
      const before = await rowCounts();
      const result = await writeMemory(h, run.token, note(extra));
      expect(result).toMatchObject({ __typename: 'MemoryValidationError', code: 'validation_error', field });
      expect(await rowCounts()).toEqual(before);
    });
  }

  it('W10: a link type with U+0000 is a validation error naming links[0].linkType', async () => {
    const target = await writeOk(h, run.token, note());
    const before = await rowCounts();
    const result = await writeMemory(
      h,
      run.token,
      note({ links: [{ targetMemoryId: target.id, linkType: `evidence${NUL}` }] }),
    );
    expect(result).toMatchObject({ __typename: 'MemoryValidationError', field: 'links[0].linkType' });
    expect(await rowCounts()).toEqual(before);
  });

  it('W10: REST bodies with U+0000 answer 400 validation_error naming the body field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ content: `a${NUL}b` }, 'content'],
      [{ instruments: [`ETH${NUL}`] }, 'instruments'],
      [{ idempotency_key: `k${NUL}` }, 'idempotency_key'],
      [{ timeframe: `${NUL}` }, 'timeframe'],
    ];
    const before = await rowCounts();
    for (const [extra, field] of cases) {
      const response = await postRest({ ...note(), ...extra });
      expect(response.status, field).toBe(400);
      expect(await response.json()).toMatchObject({ code: 'validation_error', field });
    }
    expect(await rowCounts()).toEqual(before);
  });

  it('W10: an import item with U+0000 fails the batch with BAD_USER_INPUT naming index and field', async () => {
    const before = await rowCounts();
    const result = await h.gql(
      'mutation($input: [ImportMemoryInput!]!) { importMemories(input: $input) { id } }',
      {
        input: [
          { agentId: fx.agentId, ...note(), createdAt: '2026-01-01T00:00:00Z' },
          { agentId: fx.agentId, ...note({ content: `a${NUL}` }), createdAt: '2026-01-01T00:00:00Z' },
        ],
      },
    );
    expect(result.errors?.[0]?.extensions).toMatchObject({
      code: 'validation_error',
      index: 1,
      field: 'content',
    });
    expect(await rowCounts()).toEqual(before);
  });

  it('W10: metadata may hold U+0000 and lone surrogates; they are stored and read back exactly', async () => {
    const metadata = { note: `a${NUL}b`, nested: { list: [NUL, '\ud800', '\udfff x'] }, [`k${NUL}`]: 1 };
    const written = await writeOk(h, run.token, note({ metadata }));
    // X1 stamps the expiry keys of an Analysis write; everything else is the caller's, exactly.
    const stored = {
      ...metadata,
      stale_after: written.metadata.stale_after,
      expiry_policy: 'analysis_schedule_v2',
    };
    expect(written.metadata).toEqual(stored);
    const read = await h.ok<{ memory: { metadata: unknown } }>(
      'query($id: UUID!) { memory(id: $id) { metadata } }',
      { id: written.id },
      fx.operatorToken,
    );
    expect(read.memory.metadata).toEqual(stored);
    const context = await h.ok<{ tradingContext: { entries: { memoryId: string; research: any }[] } }>(
      'query { tradingContext(instrument: "ETH") { entries { memoryId research { metadata } } } }',
      {},
      fx.operatorToken,
    );
    const entry = context.tradingContext.entries.find((e) => e.memoryId === written.id);
    expect(entry?.research.metadata).toEqual(stored);
  });

  it('W10: error messages quote at most 100 characters of the input', async () => {
    const target = await writeMemory(h, run.token, note({ instruments: [`Z${LONG}`] }));
    expect(target.__typename).toBe('InvalidMemoryTarget');
    expect(target.message.length).toBeLessThan(400);
    const dup = await writeMemory(h, run.token, note({ instruments: [LONG, LONG] }));
    expect(dup).toMatchObject({ __typename: 'MemoryValidationError', field: 'instruments' });
    expect(dup.message.length).toBeLessThan(400);
  });
});

describe('W10: reads (tradingContext, memories, memoryTypes, memoryAdded)', () => {
  it('W10: tradingContext(instrument: "ETH\\u0000") is BAD_USER_INPUT naming instrument', async () => {
    const result = await h.gql(
      'query($i: String!) { tradingContext(instrument: $i) { instrument entries { memoryId } } }',
      { i: `ETH${NUL}` },
      fx.operatorToken,
    );
    expect(result.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'instrument' });
  });

  it('W10: memories filters with U+0000 are BAD_USER_INPUT naming the field', async () => {
    const query =
      'query($f: MemoryFilter, $after: String) { memories(filter: $f, after: $after) { edges { cursor } } }';
    const cases: [Record<string, unknown>, string][] = [
      [{ f: { types: ['ema_handoff', `x${NUL}`] } }, 'types[1]'],
      [{ f: { window: { rolling: 'LAST_1H', timeZone: `UTC${NUL}` } } }, 'window.timeZone'],
      [{ after: `abc${NUL}` }, 'after'],
    ];
    for (const [variables, field] of cases) {
      const result = await h.gql(query, variables, fx.operatorToken);
      expect(result.errors?.[0]?.extensions, field).toMatchObject({ code: 'BAD_USER_INPUT', field });
    }
  });

  it('W10: read error messages quote at most 100 characters of the input', async () => {
    const results = [
      await h.gql(
        'query($f: MemoryFilter) { memories(filter: $f) { edges { cursor } } }',
        { f: { types: [LONG] } },
        fx.operatorToken,
      ),
      await h.gql(
        'query($f: MemoryFilter) { memories(filter: $f) { edges { cursor } } }',
        { f: { window: { rolling: 'LAST_1H', timeZone: LONG } } },
        fx.operatorToken,
      ),
      await h.gql('query($id: UUID!) { memory(id: $id) { id } }', { id: LONG }, fx.operatorToken),
      await h.gql(
        'query($w: TimeWindowInput) { memoryTypes(window: $w) { type } }',
        { w: { fromDate: LONG } },
        fx.operatorToken,
      ),
      await h.gql(
        'query($at: DateTime) { tradingContext(instrument: "ETH", at: $at) { instrument } }',
        { at: LONG },
        fx.operatorToken,
      ),
      await h.gql(
        'query($i: String!) { tradingContext(instrument: $i) { instrument } }',
        { i: `ETH${NUL}${LONG}` },
        fx.operatorToken,
      ),
    ];
    for (const result of results) {
      expect(result.errors?.length).toBeGreaterThan(0);
      for (const message of messagesOf(result)) expect(message.length).toBeLessThan(400);
      expect(result.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    }
  });
});

describe('W10: instants PostgreSQL cannot store', () => {
  it('W10: DateTime arguments outside years 0001–9999 are BAD_USER_INPUT, never an internal error', async () => {
    for (const at of ['0000-01-01T00:00:00Z', '0001-01-01T00:00:00+01:00', '9999-12-31T23:59:59-01:00']) {
      const context = await h.gql(
        'query($at: DateTime) { tradingContext(instrument: "ETH", at: $at) { entries { memoryId } learnings { id } } }',
        { at },
        fx.operatorToken,
      );
      expect(context.errors?.[0]?.extensions, at).toMatchObject({ code: 'BAD_USER_INPUT' });
      const before = await rowCounts();
      const imported = await h.gql(
        'mutation($input: [ImportMemoryInput!]!) { importMemories(input: $input) { id } }',
        { input: [{ agentId: fx.agentId, ...note(), createdAt: at }] },
      );
      expect(imported.errors?.[0]?.extensions, at).toMatchObject({ code: 'BAD_USER_INPUT' });
      expect(await rowCounts()).toEqual(before);
    }
    const edge = await h.gql(
      'query($at: DateTime) { tradingContext(instrument: "ETH", at: $at) { entries { memoryId } learnings { id } } }',
      { at: '0001-01-01T00:00:00Z' },
      fx.operatorToken,
    );
    expect(edge.errors).toBeUndefined();
  });

  it('W10: an explicit stale_after outside years 0001–9999 is a validation error naming metadata.stale_after (X6)', async () => {
    const trading = await startRun(h, fx.producers.trading!.id);
    const before = await rowCounts();
    for (const staleAfter of ['9999-12-31T23:59:59-01:00', '0000-06-01T00:00:00Z']) {
      const result = await writeMemory(h, trading.token, note({ metadata: { stale_after: staleAfter } }));
      expect(result, staleAfter).toMatchObject({
        __typename: 'MemoryValidationError',
        field: 'metadata.stale_after',
      });
    }
    expect(await rowCounts()).toEqual(before);
  });

  it('W10: a legacy expiry beyond year 9999 is no expiry rather than an internal error (X7–X9)', async () => {
    const source = await startRun(h, fx.producers.adhoc!.id);
    const items = [
      { createdAt: '9999-12-31T23:45:00Z', sourceRunId: source.runId },
      { createdAt: '2026-01-01T00:00:00Z', metadata: { stale_after: '0000-06-01T00:00:00Z' } },
      { createdAt: '9999-12-31T00:00:00Z', metadata: { valid_for_seconds: 1e15 } },
    ];
    for (const extra of items) {
      const result = await h.gql(
        'mutation($input: [ImportMemoryInput!]!) { importMemories(input: $input) { id expiresAt } }',
        { input: [{ agentId: fx.agentId, ...note(), ...extra }] },
      );
      expect(result.errors, JSON.stringify(extra)).toBeUndefined();
      expect(result.data?.importMemories[0].expiresAt).toBeNull();
    }
  });
});

describe('W10: admin inputs that reach text columns', () => {
  it('W10: agent name, producer name, instrument id and selected ids with U+0000 are BAD_USER_INPUT', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['mutation($n: String!) { createAgent(input: { name: $n }) { id } }', { n: `a${NUL}` }, 'name'],
      [
        'mutation($i: CreateProducerInput!) { createProducer(input: $i) { id } }',
        { i: { agentId: fx.agentId, kind: 'ANALYSIS', name: `p${NUL}` } },
        'name',
      ],
      [
        'mutation($i: UpsertInstrumentInput!) { upsertInstrument(input: $i) { id } }',
        { i: { id: `ETH${NUL}` } },
        'id',
      ],
      [
        'mutation($a: UUID!, $ids: [String!]!) { setAgentInstruments(agentId: $a, instrumentIds: $ids) { id } }',
        { a: fx.agentId, ids: ['ETH', `BTC${NUL}`] },
        'instrumentIds[1]',
      ],
    ];
    for (const [mutation, variables, field] of cases) {
      const result = await h.gql(mutation, variables);
      expect(result.errors?.[0]?.extensions, mutation).toMatchObject({ code: 'BAD_USER_INPUT', field });
    }
    const selected = await h.db.prisma.agentInstrument.findMany({
      where: { agentId: fx.agentId, deselectedAt: null },
      orderBy: { instrumentId: 'asc' },
    });
    expect(selected.map((s) => s.instrumentId)).toEqual(['BTC', 'ETH']);
  });

  it('W10: admin error messages quote at most 100 characters of the input', async () => {
    const result = await h.gql(
      'mutation($a: UUID!, $ids: [String!]!) { setAgentInstruments(agentId: $a, instrumentIds: $ids) { id } }',
      { a: fx.agentId, ids: [LONG] },
    );
    expect(result.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    for (const message of messagesOf(result)) expect(message.length).toBeLessThan(400);
  });
});

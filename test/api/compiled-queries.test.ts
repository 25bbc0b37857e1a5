// G1: compiled queries (src/http/compiled-queries.ts) answer exactly what the reference
// executor answers — data, errors, paths, locations, codes and HTTP status — for the operator page's
// own documents and for every kind of refusal. Two servers on one database: one compiling every query
// on its first run (as every other API test does), one never compiling.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import type { CompiledQueriesOptions } from '../../src/http/compiled-queries.js';
import { createServer, type Server } from '../../src/server.js';
import { CONTEXT_QUERY, RECORD_PAGE_QUERY } from '../../src/web/page-queries.js';
import {
  FILTER_OPTIONS_QUERY,
  FIRST_PAGE_QUERY,
  OLDER_PAGE_QUERY,
  TYPE_COUNTS_QUERY,
  VIEWER_QUERY,
} from '../../src/web/queries.js';
import {
  ADMIN_TOKEN,
  createAgentFixture,
  startHarness,
  startRun,
  writeOk,
  type AgentFixture,
  type Harness,
} from '../support/harness.js';
import { StatementRecorder } from '../support/statement-recorder.js';

let h: Harness;
let reference: Server;
let fx: AgentFixture;
let trading: string;
let decisionId: string;
let firstCursor: string;
const recorder = new StatementRecorder();

beforeAll(async () => {
  h = await startHarness({ recorder });
  reference = serverOnSameDatabase(false);
  h.clock.set('2026-03-02T10:00:00Z');
  fx = await createAgentFixture(h, { instruments: ['BTC', 'ETH'] });
  const analysis = (await startRun(h, fx.producers.adhoc!.id)).token;
  trading = (await startRun(h, fx.producers.trading!.id)).token;
  const write = (token: string, input: Record<string, unknown>) => {
    h.clock.advance(1000);
    return writeOk(h, token, input);
  };
  const expiresAt = '2026-03-03T00:00:00Z';
  const view = await write(analysis, {
    type: 'ema_handoff',
    scope: 'INSTRUMENTS',
    instruments: ['ETH'],
    content: 'ETH above the 200 EMA',
    metadata: { expiresAt, levels: [1, 2.5, null], nested: { ok: true } },
  });
  await write(analysis, {
    type: 'correction',
    scope: 'INSTRUMENTS',
    instruments: ['ETH'],
    content: 'the 100 EMA',
    metadata: { expiresAt },
    links: [{ targetMemoryId: view.id, linkType: 'corrects' }],
  });
  for (let i = 0; i < 6; i++)
    await write(analysis, { type: `note_${i % 3}`, scope: 'AGENT', content: `note ${i}`, timeframe: '1h' });
  const decision = await write(trading, {
    type: 'trading_decision',
    scope: 'INSTRUMENTS',
    instruments: ['ETH'],
    content: 'long ETH',
    links: [{ targetMemoryId: view.id, linkType: 'evidence' }],
  });
  decisionId = decision.id;
  const page = await h.ok<{ memories: { pageInfo: { endCursor: string } } }>(
    'query($f: Int) { memories(first: $f) { pageInfo { endCursor } } }',
    { f: 3 },
    fx.operatorToken,
  );
  firstCursor = page.memories.pageInfo.endCursor;
});
afterAll(async () => {
  await reference.close();
  await h.close();
});

/** The same request to both servers, three times each (the compiling one compiles on its first). */
async function bothAnswer(body: Record<string, unknown>, token: string | null) {
  const send = async (server: Server) => {
    const response = await server.yoga.fetch('http://test/graphql', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify(body),
    });
    // G1: the text itself must match (both executors keep the selection's key order), parsed for reading.
    const text = await response.text();
    return { status: response.status, text, body: JSON.parse(text) as Record<string, unknown> };
  };
  const compiled = [await send(h.server), await send(h.server), await send(h.server)];
  const plain = await send(reference);
  return { compiled, plain };
}

/** Another server on the harness's database (a Yoga instance of its own, with its own metrics). */
function serverOnSameDatabase(compiledQueries: CompiledQueriesOptions | false): Server {
  return createServer({
    db: h.db,
    events: h.events,
    adminToken: ADMIN_TOKEN,
    logger: createLogger('silent'),
    now: h.clock.now,
    compiledQueries,
  });
}

const ask = (server: Server, query: string) =>
  server.yoga.fetch('http://test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${fx.operatorToken}` },
    body: JSON.stringify({ query }),
  });

/** A server's executor and compilation counters. */
async function counters(
  server: Server,
): Promise<{ compiled: number; reference: number; compilations: number }> {
  const text = await (await server.yoga.fetch('http://test/metrics')).text();
  const value = (pattern: string) => Number(new RegExp(`^${pattern} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
  return {
    compiled: value('memory_graphql_query_executions_total\\{executor="compiled"\\}'),
    reference: value('memory_graphql_query_executions_total\\{executor="reference"\\}'),
    compilations: value('memory_graphql_query_compilations_total'),
  };
}

/** The compiling server's counters. */
const executions = () => counters(h.server);

describe('compiled queries answer as the reference executor does (G1)', () => {
  const cases: [string, () => [Record<string, unknown>, string | null]][] = [
    [
      'the first page with type counts',
      () => [{ query: FIRST_PAGE_QUERY, variables: { first: 4 } }, fx.operatorToken],
    ],
    [
      'page 2 with a filter',
      () => [
        {
          query: OLDER_PAGE_QUERY,
          variables: {
            first: 3,
            after: firstCursor,
            filter: { instruments: ['ETH'], window: { rolling: 'LAST_24H', timeZone: 'Europe/Berlin' } },
          },
        },
        fx.operatorToken,
      ],
    ],
    [
      'type counts',
      () => [
        { query: TYPE_COUNTS_QUERY, variables: { countFilter: { types: ['note_1'] } } },
        fx.operatorToken,
      ],
    ],
    [
      'the filter options',
      () => [{ query: FILTER_OPTIONS_QUERY, variables: { agentId: fx.agentId } }, fx.operatorToken],
    ],
    ['the viewer', () => [{ query: VIEWER_QUERY }, fx.operatorToken]],
    [
      'a decision’s record page with its audit',
      () => [{ query: RECORD_PAGE_QUERY, variables: { id: decisionId } }, fx.operatorToken],
    ],
    [
      'the Context tab',
      () => [
        { query: CONTEXT_QUERY, variables: { agentId: fx.agentId, instrument: 'ETH', at: null } },
        ADMIN_TOKEN,
      ],
    ],
    [
      'a Trading run’s context with learnings, aliases, fragments and directives',
      () => [
        {
          query: `query($skip: Boolean!) {
            eth: tradingContext(instrument: "ETH") { ...C learnings @skip(if: $skip) { id } }
            btc: tradingContext(instrument: "BTC") { ... on TradingContext { instrument at } __typename }
          }
          fragment C on TradingContext { entries { memoryId status research { content links { linkType } } } corrections { memoryId correctionTargetIds } }`,
          variables: { skip: false },
        },
        trading,
      ],
    ],
    [
      'an unknown record (null)',
      () => [{ query: '{ memory(id: "00000000-0000-4000-8000-000000000000") { id } }' }, fx.operatorToken],
    ],
    [
      'a refused variable',
      () => [{ query: OLDER_PAGE_QUERY, variables: { first: 'many' } }, fx.operatorToken],
    ],
    [
      'a malformed filter variable',
      () => [
        { query: OLDER_PAGE_QUERY, variables: { filter: { window: { rolling: 'LAST_CENTURY' } } } },
        fx.operatorToken,
      ],
    ],
    ['a typed input error', () => [{ query: OLDER_PAGE_QUERY, variables: { first: 500 } }, fx.operatorToken]],
    [
      'a tampered cursor',
      () => [{ query: OLDER_PAGE_QUERY, variables: { after: 'bm9wZQ' } }, fx.operatorToken],
    ],
    [
      'a refusal of one field beside an answer (partial data)',
      () => [{ query: '{ viewer { kind } memories(first: 1) { edges { cursor } } }' }, trading],
    ],
    [
      'another agent’s records',
      () => [
        { query: `{ memories(agentId: "${fx.producers.adhoc!.id}") { edges { cursor } } }` },
        fx.operatorToken,
      ],
    ],
    ['the admin without agentId', () => [{ query: '{ memoryTypes { type } }' }, ADMIN_TOKEN]],
    [
      // Compiled code is generated from the document: literals that would break naive code generation.
      'hostile string literals in arguments',
      () => [
        {
          query: String.raw`{ a: tradingContext(instrument: "\"); throw new Error(1); //") { instrument } b: tradingContext(instrument: "${'$'}{process.exit(1)}\u2028\\") { instrument entries { memoryId } } }`,
        },
        trading,
      ],
    ],
    [
      'introspection',
      () => [
        {
          query:
            '{ __schema { queryType { name } types { name kind } } __type(name: "Memory") { fields { name } } }',
        },
        fx.operatorToken,
      ],
    ],
  ];
  for (const [label, request] of cases) {
    it(`G1: ${label}`, async () => {
      const [body, token] = request();
      const before = await executions();
      const { compiled, plain } = await bothAnswer(body, token);
      for (const answer of compiled) expect(answer).toEqual(plain);
      // S9: every answer that ran came from the compiled query all three times, errors included; a
      // refused variable (no data at all) was answered by the reference executor without running it.
      const after = await executions();
      const ran = 'data' in plain.body;
      expect(after.compiled - before.compiled).toBe(ran ? 3 : 0);
      expect(after.reference - before.reference).toBe(ran ? 0 : 3);
    });
  }

  it('G1: the cases cover answers and refusals alike', async () => {
    let refused = 0;
    for (const [, request] of cases) {
      const [body, token] = request();
      const { plain } = await bothAnswer(body, token);
      if (plain.body.errors) refused++;
    }
    expect(refused).toBeGreaterThanOrEqual(7);
    expect(cases.length - refused).toBeGreaterThanOrEqual(9);
  });

  it('G1: by default a document compiles on its second run (a one-off never pays for compiling)', async () => {
    const server = serverOnSameDatabase({});
    try {
      for (let i = 0; i < 3; i++) expect((await ask(server, '{ memoryTypes { type } }')).status).toBe(200);
      expect((await ask(server, '{ memoryTypes { count } }')).status).toBe(200);
      expect(await counters(server)).toMatchObject({ reference: 2, compiled: 2, compilations: 1 });
    } finally {
      await server.close();
    }
  });

  it('G1: the least recently used compiled documents are dropped beyond the field budget', async () => {
    // Each document selects 3 fields: a budget of 5 holds one of them, a budget of 6 both.
    for (const [budget, compilations] of [
      [5, 3],
      [6, 2],
    ] as const) {
      const server = serverOnSameDatabase({ compileOnRun: 1, maxCompiledFields: budget });
      try {
        for (const query of [
          '{ memoryTypes { type count } }',
          '{ memories(first: 1) { pageInfo { hasNextPage } } }',
          '{ memoryTypes { type count } }',
        ])
          expect((await ask(server, query)).status).toBe(200);
        expect(await counters(server), `budget ${budget}`).toMatchObject({ compiled: 3, compilations });
      } finally {
        await server.close();
      }
    }
  });

  it('G1: operations with variable defaults and anonymous requests are never compiled', async () => {
    // graphql-jit would hand the resolver a DateTime default as a string, where graphql-js gives a Date.
    const withDefault = `query($at: DateTime = "2026-03-02T10:00:30Z") { tradingContext(instrument: "ETH", at: $at) { at entries { memoryId } } }`;
    const start = await executions();
    const { compiled, plain } = await bothAnswer({ query: withDefault }, trading);
    for (const answer of compiled) expect(answer).toEqual(plain);
    const before = await executions();
    expect(before.compilations).toBe(start.compilations);
    await bothAnswer({ query: '{ __schema { queryType { name } } }' }, null);
    const after = await executions();
    expect(after.compiled).toBe(before.compiled);
    expect(after.compilations).toBe(before.compilations);
    expect(after.reference - before.reference).toBe(3);
    // The default case above was answered by the reference executor each time.
    expect(plain.body).toMatchObject({ data: { tradingContext: { at: '2026-03-02T10:00:30.000Z' } } });
  });

  it('S3: a document selecting more than 200 fields is never compiled (compiling it would stall the event loop)', async () => {
    const node =
      'id type scope instruments content metadata createdAt provenance { runId kind runStatus } links { linkType }';
    const wide = (count: number) =>
      `{ ${Array.from({ length: count }, (_, i) => `a${i}: memories(first: 1) { edges { cursor node { ${node} } } }`).join(' ')} }`;
    // 17 fields per alias: 11 aliases are 187 fields and compile, 12 are 204 and do not.
    for (const [aliases, executor] of [
      [11, 'compiled'],
      [12, 'reference'],
    ] as const) {
      const before = await executions();
      for (let i = 0; i < 2; i++) await h.ok(wide(aliases), {}, fx.operatorToken);
      const after = await executions();
      expect(after[executor] - before[executor], `${aliases} aliases`).toBe(2);
    }
  });
});

describe('G1: an answer follows the selection set, whichever executor ran it', () => {
  it('G1: the first (reference) and later (compiled) answers are byte-identical, in the selection order', async () => {
    const server = serverOnSameDatabase({});
    try {
      // tradingContext reads the database; __typename and viewer answer at once.
      const query = '{ tradingContext(instrument: "ETH") { at } v: __typename w: viewer { kind } }';
      const bodies: string[] = [];
      for (let i = 0; i < 4; i++) bodies.push(await (await ask(server, query)).text());
      expect(await counters(server)).toMatchObject({ reference: 1, compiled: 3 });
      expect(bodies.slice(1)).toEqual([bodies[0], bodies[0], bodies[0]]);
      expect(bodies[0]).toMatch(
        /^\{"data":\{"tradingContext":\{"at":"[^"]+"\},"v":"Query","w":\{"kind":"OPERATOR"\}\}\}$/,
      );
    } finally {
      await server.close();
    }
  });

  it('G1: nested selections, aliases and fragments keep the document order on both executors', async () => {
    const query = `{
      w: viewer { kind agent { name id } }
      memories(first: 2) { pageInfo { hasNextPage endCursor } edges { node { ...M } cursor } }
      memoryTypes { count type }
      n: __typename
    }
    fragment M on Memory { type id links { targetMemoryId linkType } provenance { kind runId } content }`;
    const send = async (server: Server) => (await ask(server, query)).text();
    const plain = await send(reference);
    expect(await send(h.server)).toBe(plain);
    expect(await send(h.server)).toBe(plain);
    const data = (JSON.parse(plain) as { data: Record<string, any> }).data;
    expect(Object.keys(data)).toEqual(['w', 'memories', 'memoryTypes', 'n']);
    expect(Object.keys(data.memories)).toEqual(['pageInfo', 'edges']);
    expect(Object.keys(data.memories.edges[0])).toEqual(['node', 'cursor']);
    expect(Object.keys(data.memories.edges[0].node)).toEqual([
      'type',
      'id',
      'links',
      'provenance',
      'content',
    ]);
  });
});

describe('S9: a document whose answer has errors is executed once', () => {
  /** The statements one request sends, and which executor answered it. */
  const oneRequest = async (server: Server, query: string) => {
    const before = await counters(server);
    let text = '';
    const trips = await recorder.during(async () => {
      text = await (await ask(server, query)).text();
    });
    const after = await counters(server);
    return {
      text,
      statements: trips.statements,
      compiled: after.compiled - before.compiled,
      reference: after.reference - before.reference,
    };
  };

  it('S9: a typed error beside reads that ran is answered from the compiled run, its statements sent once', async () => {
    // memories refuses `first` at once; tradingContext and memoryTypes have already read by then.
    const query = `{ tradingContext(instrument: "ETH") { at entries { memoryId } } memoryTypes { type count }
      memories(first: 500) { edges { cursor } } }`;
    const plain = await oneRequest(reference, query);
    expect(plain.statements.length).toBeGreaterThan(0);
    expect(JSON.parse(plain.text)).toMatchObject({
      data: null,
      errors: [{ extensions: { code: 'BAD_USER_INPUT' } }],
    });
    for (let i = 0; i < 3; i++) {
      const compiled = await oneRequest(h.server, query);
      expect(compiled.text).toBe(plain.text);
      expect(compiled.statements).toEqual(plain.statements);
      expect(compiled).toMatchObject({ compiled: 1, reference: 0 });
    }
  });

  it('S9: partial data beside a refused field is answered from the compiled run too', async () => {
    const query =
      '{ viewer { kind } tradingContext(instrument: "ETH") { at } memories(first: 1) { edges { cursor } } }';
    const send = (server: Server) =>
      server.yoga.fetch('http://test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${trading}` },
        body: JSON.stringify({ query }),
      });
    const plainText = await (await send(reference)).text();
    const before = await executions();
    let compiledText = '';
    const trips = await recorder.during(async () => {
      compiledText = await (await send(h.server)).text();
    });
    const plainTrips = await recorder.during(async () => void (await (await send(reference)).text()));
    expect(compiledText).toBe(plainText);
    expect(trips.statements).toEqual(plainTrips.statements);
    expect(await executions()).toMatchObject({ compiled: before.compiled + 1, reference: before.reference });
  });
});

// S7–S9: every read is bounded in database time, expensive reads are counted per token and run on
// capacity of their own, and a read nobody waits for is cancelled. PostgreSQL's own bound and cancel
// are seen in pg_stat_activity, with a table lock that holds reads as long as a test needs; the
// budgets are proven on both databases with statements held back by the test hook.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_EXPENSIVE_PER_TOKEN } from '../../src/service/read-budget.js';
import { DEFAULT_POOL_SIZE } from '../../src/store/pool-sizes.js';
import { testDatabaseUrl } from '../support/env.js';
import {
  createAgentFixture,
  startHarness,
  startRun,
  writeOk,
  type AgentFixture,
  type Harness,
} from '../support/harness.js';
import { mcpRequest } from '../support/mcp.js';
import { RawSocket } from '../support/raw-ws.js';

const STATEMENT_TIMEOUT_MS = 1500;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

let h: Harness;
let base: string;
let alpha: AgentFixture;
let beta: AgentFixture;
/** The test hook's rule of the moment: may hold a statement back or fail it. */
let hold: (statement: {
  text: string;
  params: readonly unknown[];
  name?: string;
}) => Promise<void> | void = () => {};

const SEARCH_PAGE = `query($text: String!) {
  memories(filter: { text: $text }, first: 5) { edges { node { id } } } }`;
const PAGE = 'query { memories(first: 5) { edges { node { id } } } }';

beforeAll(async () => {
  h = await startHarness({
    statementTimeoutMs: STATEMENT_TIMEOUT_MS,
    // Production's pools: S8's expensive lane holds more statements than one token may run.
    poolSize: DEFAULT_POOL_SIZE,
    // graphql-js answers a document whose non-null root field failed at once (S9's sibling case); a
    // compiled document (graphql-jit) waits for every field first, so its siblings end by S7's bound.
    server: { compiledQueries: false },
    beforeStatement: (statement) => hold(statement),
  });
  base = `http://127.0.0.1:${(await h.server.listen(0, '127.0.0.1')).port}`;
  alpha = await createAgentFixture(h, { name: 'alpha' });
  beta = await createAgentFixture(h, { name: 'beta' });
  for (const agent of [alpha, beta]) {
    const run = await startRun(h, agent.producers.adhoc!.id);
    for (let i = 0; i < 3; i++) {
      await writeOk(h, run.token, { type: 'note', scope: 'AGENT', content: `risk market candle ${i}` });
    }
  }
}, 120_000);
afterAll(async () => {
  await h?.close();
});

const graphql = (
  token: string,
  query: string,
  variables: Record<string, unknown> = {},
  signal?: AbortSignal,
) =>
  fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
    ...(signal ? { signal } : {}),
  });

const mcpCall = (token: string, name: string, args: Record<string, unknown>, signal?: AbortSignal) =>
  fetch(`${base}/mcp`, {
    ...mcpRequest(token, { method: 'tools/call', params: { name, arguments: args } }),
    ...(signal ? { signal } : {}),
  });

/** Holds back the search statements of `agentId` until the returned function is called. */
function holdSearchesOf(agentId: string): () => void {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  hold = async ({ text, params }) => {
    if (params[0] === agentId && text.includes('websearch_to_tsquery')) await opened;
  };
  return () => {
    hold = () => {};
    open();
  };
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  const value = await work();
  return { value, ms: performance.now() - start };
}

describe('S8: expensive reads are counted per token', () => {
  it(`S8: one token runs at most ${DEFAULT_MAX_EXPENSIVE_PER_TOKEN} searches at once; the next waits ≈ 1 s, then RATE_LIMITED; another token is not affected`, async () => {
    const release = holdSearchesOf(alpha.agentId);
    try {
      const running = Array.from({ length: DEFAULT_MAX_EXPENSIVE_PER_TOKEN }, () =>
        graphql(alpha.operatorToken, SEARCH_PAGE, { text: 'risk' }),
      );
      await sleep(100);
      const third = timed(async () => {
        const response = await graphql(alpha.operatorToken, SEARCH_PAGE, { text: 'candle' });
        return (await response.json()) as { errors?: { extensions: { code: string } }[] };
      });
      // Alpha's plain pages and beta's are not held by alpha's budget; nor are beta's searches where
      // the process runs more expensive statements at once than one token may (PostgreSQL).
      for (const token of [alpha.operatorToken, beta.operatorToken]) {
        const page = (await (await graphql(token, PAGE)).json()) as { data?: unknown };
        expect(page.data).toBeTruthy();
      }
      if ((h.db.pools?.expensive.options.max ?? 1) > DEFAULT_MAX_EXPENSIVE_PER_TOKEN) {
        const other = await (await graphql(beta.operatorToken, SEARCH_PAGE, { text: 'risk' })).json();
        expect(other).toMatchObject({ data: { memories: { edges: expect.any(Array) } } });
      }
      const refused = await third;
      expect(refused.value.errors?.[0]?.extensions.code).toBe('RATE_LIMITED');
      expect(refused.ms).toBeGreaterThanOrEqual(900);
      // What an operator sees: the refusal counted by reason.
      const metrics = await (await fetch(`${base}/metrics`)).text();
      expect(metrics).toMatch(/^memory_reads_refused_total\{reason="rate_limited"\} [1-9]/m);
      expect(metrics).toMatch(
        new RegExp(`^memory_expensive_reads_running ${DEFAULT_MAX_EXPENSIVE_PER_TOKEN}$`, 'm'),
      );
      release();
      for (const response of await Promise.all(running)) {
        const body = (await response.json()) as { data?: { memories: { edges: unknown[] } } };
        expect(body, JSON.stringify(body)).toMatchObject({
          data: { memories: { edges: expect.any(Array) } },
        });
        expect(body.data?.memories.edges).toHaveLength(3);
      }
    } finally {
      release();
    }
  });

  it('S8: MCP list calls count as expensive reads (rate_limited as an isError result), the export too (429 rate_limited)', async () => {
    const release = holdSearchesOf(alpha.agentId);
    try {
      const running = Array.from({ length: DEFAULT_MAX_EXPENSIVE_PER_TOKEN }, () =>
        graphql(alpha.operatorToken, SEARCH_PAGE, { text: 'risk' }),
      );
      await sleep(100);
      const listed = (await (await mcpCall(alpha.operatorToken, 'list_memory_types', {})).json()) as {
        result: { isError?: boolean; structuredContent: { code: string } };
      };
      expect(listed.result.isError).toBe(true);
      expect(listed.result.structuredContent.code).toBe('rate_limited');
      const exported = await fetch(`${base}/api/v1/export?format=ndjson`, {
        headers: { authorization: `Bearer ${alpha.operatorToken}` },
      });
      expect(exported.status).toBe(429);
      expect(exported.headers.get('retry-after')).toBe('1');
      expect(await exported.json()).toMatchObject({ code: 'rate_limited' });
      release();
      await Promise.all((await Promise.all(running)).map((response) => response.text()));
      // Once they answered, the same calls run.
      const again = (await (await mcpCall(alpha.operatorToken, 'list_memory_types', {})).json()) as {
        result: { isError?: boolean };
      };
      expect(again.result.isError).toBeUndefined();
    } finally {
      release();
    }
  });

  it("S8: with the process's expensive capacity taken by other tokens, writes, pages, the context and /readyz answer at once; the expensive read beyond it waits its bound, then RATE_LIMITED", async () => {
    const fleet = await Promise.all([0, 1, 2].map((i) => createAgentFixture(h, { name: `fleet-${i}` })));
    // Every search statement is held: the fleet fills the expensive lane (4 on PostgreSQL, 1 on PGlite).
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    hold = async ({ text }) => {
      if (text.includes('websearch_to_tsquery')) await opened;
    };
    try {
      const capacity = h.db.pools?.expensive.options.max ?? 1;
      const searches = fleet.flatMap((agent) =>
        Array.from({ length: DEFAULT_MAX_EXPENSIVE_PER_TOKEN }, () =>
          graphql(agent.operatorToken, SEARCH_PAGE, { text: 'risk' }).then(
            (response) => response.json() as Promise<{ errors?: { extensions: { code: string } }[] }>,
          ),
        ),
      );
      expect(searches.length).toBeGreaterThan(capacity);
      await sleep(200);
      const run = await startRun(h, beta.producers.adhoc!.id);
      const ordinary = await timed(() =>
        Promise.all([
          writeOk(h, run.token, { type: 'note', scope: 'AGENT', content: 'written beside the searches' }),
          graphql(beta.operatorToken, PAGE).then((response) => response.json()),
          graphql(beta.operatorToken, 'query { tradingContext(instrument: "ETH") { at } }').then((r) =>
            r.json(),
          ),
          fetch(`${base}/readyz`).then((response) => response.status),
        ]),
      );
      expect(ordinary.ms).toBeLessThan(1000);
      expect(ordinary.value[3]).toBe(200);
      // Those beyond the capacity wait at most the statement bound, then are refused.
      const waited = await timed(() =>
        Promise.race([Promise.all(searches), sleep(STATEMENT_TIMEOUT_MS + 1500)]),
      );
      expect(waited.value).toBeUndefined();
      open();
      const answers = await Promise.all(searches);
      const refused = answers.filter((answer) => answer.errors?.[0]?.extensions.code === 'RATE_LIMITED');
      expect(refused.length).toBe(searches.length - capacity);
      expect(answers.filter((answer) => !answer.errors)).toHaveLength(capacity);
    } finally {
      hold = () => {};
      open();
    }
  }, 30_000);
});

/** Statements of the test database that are running now, the monitoring query itself aside. */
async function activeStatements(admin: pg.Client): Promise<string[]> {
  const { rows } = await admin.query<{ query: string }>(
    `SELECT query FROM pg_stat_activity
      WHERE datname = current_database() AND state = 'active' AND pid <> pg_backend_pid()`,
  );
  return rows.map((row) => row.query);
}

describe.skipIf(!testDatabaseUrl)('S7, S9: bounded and cancelled statements (PostgreSQL)', () => {
  let admin: pg.Client;
  /** Holds every read of "Memory" until `unlock`: a reader then waits in the database, as a slow one does. */
  let locker: pg.Client;
  const lock = async () => {
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE "Memory" IN ACCESS EXCLUSIVE MODE');
  };
  const unlock = () => locker.query('COMMIT');

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: h.db.url });
    locker = new pg.Client({ connectionString: h.db.url });
    await Promise.all([admin.connect(), locker.connect()]);
  });
  afterAll(async () => {
    await Promise.all([admin?.end(), locker?.end()]);
  });

  const searching = async () =>
    (await activeStatements(admin)).filter((query) => query.includes('websearch_to_tsquery'));

  it('S7: a read past STATEMENT_TIMEOUT_MS answers QUERY_TIMEOUT (GraphQL), 503 query_timeout (export), an isError query_timeout result (MCP); a write keeps its larger bound', async () => {
    const run = await startRun(h, alpha.producers.adhoc!.id);
    await lock();
    let unlocked = false;
    try {
      const write = writeOk(h, run.token, { type: 'note', scope: 'AGENT', content: 'waits for the lock' });
      const page = await timed(async () => (await graphql(alpha.operatorToken, PAGE)).json());
      expect(page.value).toMatchObject({ errors: [{ extensions: { code: 'QUERY_TIMEOUT' } }] });
      expect(page.ms).toBeGreaterThanOrEqual(STATEMENT_TIMEOUT_MS - 100);
      expect(page.ms).toBeLessThan(STATEMENT_TIMEOUT_MS + 1000);
      const context = (await (
        await graphql(alpha.operatorToken, 'query { tradingContext(instrument: "ETH") { at } }')
      ).json()) as Record<string, unknown>;
      expect(context).toMatchObject({ errors: [{ extensions: { code: 'QUERY_TIMEOUT' } }] });
      const exported = await fetch(`${base}/api/v1/export?format=csv`, {
        headers: { authorization: `Bearer ${alpha.operatorToken}` },
      });
      expect(exported.status).toBe(503);
      expect(await exported.json()).toMatchObject({ code: 'query_timeout' });
      const listed = (await (await mcpCall(alpha.operatorToken, 'list_memories', {})).json()) as {
        result: { isError?: boolean; structuredContent: { code: string } };
      };
      expect(listed.result).toMatchObject({ isError: true, structuredContent: { code: 'query_timeout' } });
      const metrics = await (await fetch(`${base}/metrics`)).text();
      expect(metrics).toMatch(/^memory_reads_refused_total\{reason="query_timeout"\} [1-9]/m);
      // The write has waited longer than a read may: its own bound is five times larger.
      await unlock();
      unlocked = true;
      expect(await write).toMatchObject({ type: 'note' });
    } finally {
      if (!unlocked) await unlock();
    }
  }, 30_000);

  /** Starts a search with `start`, waits until it runs in the database, ends it with `leave`; it must stop within 1 s. */
  async function cancelledWithin1s(start: () => void, leave: () => Promise<void> | void): Promise<void> {
    await lock();
    try {
      start();
      await expect.poll(searching, { timeout: 1000 }).toHaveLength(1);
      await leave();
      const left = performance.now();
      await expect.poll(searching, { timeout: 1000, interval: 50 }).toHaveLength(0);
      expect(performance.now() - left).toBeLessThan(1000);
    } finally {
      await unlock();
    }
  }

  it('S9: a WebSocket that closes cancels its query operation’s running statement within 1 s', async () => {
    const socket = await RawSocket.open(base, alpha.operatorToken);
    await cancelledWithin1s(
      () => socket.subscribe('q1', SEARCH_PAGE, { text: 'risk' }),
      () => socket.socket.terminate(),
    );
  }, 30_000);

  it('S9: a client that aborts its request cancels the running statement within 1 s (GraphQL over HTTP, MCP)', async () => {
    for (const call of [
      (signal: AbortSignal) => graphql(alpha.operatorToken, SEARCH_PAGE, { text: 'risk' }, signal),
      (signal: AbortSignal) => mcpCall(alpha.operatorToken, 'list_memories', { text: 'risk' }, signal),
    ]) {
      const controller = new AbortController();
      let answer: Promise<unknown> = Promise.resolve();
      await cancelledWithin1s(
        () => void (answer = call(controller.signal).catch(() => null)),
        async () => {
          controller.abort();
          await answer;
        },
      );
    }
  }, 30_000);

  it('S9: an answer complete before its sibling (a non-null field failed, data null) cancels the sibling’s statement', async () => {
    await lock();
    // The type counts fail (held back, then a lost connection) while the search waits for the lock.
    hold = async ({ name }) => {
      if (name?.startsWith('types')) {
        await sleep(300);
        throw new Error('connection lost');
      }
    };
    try {
      const answered = await timed(async () =>
        (
          await graphql(
            alpha.operatorToken,
            `
              query ($text: String!) {
                memories(filter: { text: $text }) {
                  edges {
                    node {
                      id
                    }
                  }
                }
                memoryTypes(window: { rolling: LAST_24H }) {
                  type
                  count
                }
              }
            `,
            { text: 'risk' },
          )
        ).json(),
      );
      expect(answered.value).toMatchObject({ data: null });
      expect(answered.ms).toBeLessThan(STATEMENT_TIMEOUT_MS - 500);
      await expect.poll(searching, { timeout: 500, interval: 50 }).toHaveLength(0);
    } finally {
      hold = () => {};
      await unlock();
    }
  }, 30_000);
});

// An in-process service over a fresh database: GraphQL through yoga.fetch, a settable clock, and
// admin helpers that build agents, producers and runs through the public API.
import type { WriteForm } from '../../src/store/write-form.js';
import { createLogger } from '../../src/logger.js';
import { createServer, type Server, type ServerDeps } from '../../src/server.js';
import { createMemoryEvents, type MemoryEvents } from '../../src/live/events.js';
import type { Database } from '../../src/store/db.js';
import { createEmbeddedTestDatabase, createTestDatabase } from './db.js';
import type { StatementRecorder } from './statement-recorder.js';
import type { StatementHook } from '../../src/store/statement-observer.js';

export const ADMIN_TOKEN = 'adm_test_token_0123456789abcdef';

export interface GqlResult<T = Record<string, unknown>> {
  data?: T;
  errors?: { message: string; path?: string[]; extensions?: Record<string, unknown> }[];
}

export class Clock {
  private fixed: Date | null = null;
  now = (): Date => (this.fixed ? new Date(this.fixed) : new Date());
  set(at: Date | string): void {
    this.fixed = new Date(at);
  }
  advance(ms: number): void {
    this.fixed = new Date(this.now().getTime() + ms);
  }
  real(): void {
    this.fixed = null;
  }
}

export interface Harness {
  db: Database & { url?: string };
  server: Server;
  events: MemoryEvents;
  clock: Clock;
  fetch(path: string, init?: RequestInit): Promise<Response>;
  gql<T = Record<string, any>>(
    query: string,
    variables?: Record<string, unknown>,
    token?: string | null,
  ): Promise<GqlResult<T>>;
  /** Like gql, but throws on GraphQL errors and returns data. */
  ok<T = Record<string, any>>(
    query: string,
    variables?: Record<string, unknown>,
    token?: string | null,
  ): Promise<T>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  events?: MemoryEvents;
  webRoot?: string;
  maxConnectionsPerToken?: number;
  sessionCheckMs?: number;
  /** Receives every log line (S4 tests); omitted ⇒ silent unless TEST_LOG_LEVEL is set. */
  logLines?: string[];
  /** Extra server settings (S2: CORS origins, GraphiQL, introspection). */
  server?: Partial<ServerDeps>;
  /** Hears every statement the service sends (round-trip snapshots). */
  recorder?: StatementRecorder;
  /** Runs before every direct SQL statement: delays or fails it (fault injection). */
  beforeStatement?: StatementHook;
  /** S7: the read bound of the test's database (PostgreSQL). */
  statementTimeoutMs?: number;
  /** D3: the plain layout whatever TEST_DATABASE_LAYOUT says (tests of plan shapes and index names). */
  layout?: 'plain';
  /** D2: how the service sends the record write (WRITE_FORM; default the one statement). */
  writeForm?: WriteForm;
  /** PostgreSQL: DATABASE_POOL_SIZE (default TEST_POOL_SIZE, test/support/env.ts). */
  poolSize?: number;
}

const databaseOptions = (options: HarnessOptions) => ({
  onStatement: options.recorder?.listener,
  beforeStatement: options.beforeStatement,
  statementTimeoutMs: options.statementTimeoutMs,
  layout: options.layout,
  writeForm: options.writeForm,
  poolSize: options.poolSize,
});

/** The service over a fresh database of the run's kind (PGlite, or PostgreSQL with TEST_DATABASE_URL). */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  return serve(await createTestDatabase(databaseOptions(options)), options);
}

/**
 * The service over a fresh embedded database whatever the run's kind: for tests of what the kind
 * cannot change (the operator page drives the API, whose answers test/api proves on both kinds),
 * so a file using only this runs once (project `once`).
 */
export async function startEmbeddedHarness(options: HarnessOptions = {}): Promise<Harness> {
  return serve(await createEmbeddedTestDatabase(databaseOptions(options)), options);
}

function serve(db: Database & { url?: string }, options: HarnessOptions): Harness {
  const events = options.events ?? createMemoryEvents();
  const clock = new Clock();
  const server = createServer({
    db,
    events,
    adminToken: ADMIN_TOKEN,
    logger: options.logLines
      ? createLogger('debug', { write: (line: string) => void options.logLines!.push(line) })
      : createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
    now: clock.now,
    webRoot: options.webRoot,
    maxConnectionsPerToken: options.maxConnectionsPerToken,
    sessionCheckMs: options.sessionCheckMs,
    // Every query compiles on its first run, so each one the tests send is answered compiled.
    compiledQueries: { compileOnRun: 1 },
    ...options.server,
  });
  const fetchApi = async (path: string, init?: RequestInit): Promise<Response> =>
    server.yoga.fetch(`http://test${path}`, init as Parameters<typeof server.yoga.fetch>[1]);
  const gql = async <T>(
    query: string,
    variables?: Record<string, unknown>,
    token: string | null = ADMIN_TOKEN,
  ) => {
    const response = await fetchApi('/graphql', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify({ query, variables }),
    });
    return (await response.json()) as GqlResult<T>;
  };
  return {
    db,
    server,
    events,
    clock,
    fetch: fetchApi,
    gql,
    async ok<T>(query: string, variables?: Record<string, unknown>, token?: string | null) {
      const result = await gql<T>(query, variables, token === undefined ? ADMIN_TOKEN : token);
      if (result.errors?.length) throw new Error(`GraphQL errors: ${JSON.stringify(result.errors)}`);
      return result.data as T;
    },
    async close() {
      await server.close();
      await events.close();
      await db.close();
    },
  };
}

export interface AgentFixture {
  agentId: string;
  producers: Record<string, { id: string; kind: string; schedule: string | null }>;
  operatorToken: string;
}

/** An agent selecting `instruments`, with the named producers (`name → [kind, schedule]`). */
export async function createAgentFixture(
  h: Harness,
  options: {
    name?: string;
    instruments?: string[];
    producers?: Record<string, ['ANALYSIS' | 'TRADING' | 'REVIEW', string | null]>;
  } = {},
): Promise<AgentFixture> {
  const instruments = options.instruments ?? ['BTC', 'ETH', 'SOL'];
  for (const id of instruments) {
    await h.ok('mutation($i: UpsertInstrumentInput!) { upsertInstrument(input: $i) { id } }', {
      i: { id, active: true },
    });
  }
  const { createAgent } = await h.ok<{ createAgent: { id: string } }>(
    'mutation($n: String!) { createAgent(input: { name: $n }) { id } }',
    { n: options.name ?? `agent-${Math.random().toString(36).slice(2)}` },
  );
  await h.ok(
    'mutation($a: UUID!, $ids: [String!]!) { setAgentInstruments(agentId: $a, instrumentIds: $ids) { id } }',
    {
      a: createAgent.id,
      ids: instruments,
    },
  );
  const producers: AgentFixture['producers'] = {};
  const wanted = options.producers ?? {
    analysis: ['ANALYSIS', '5m'],
    adhoc: ['ANALYSIS', null],
    trading: ['TRADING', null],
    review: ['REVIEW', null],
  };
  for (const [name, [kind, schedule]] of Object.entries(wanted)) {
    const { createProducer } = await h.ok<{ createProducer: { id: string } }>(
      'mutation($i: CreateProducerInput!) { createProducer(input: $i) { id } }',
      { i: { agentId: createAgent.id, kind, name, schedule } },
    );
    producers[name] = { id: createProducer.id, kind, schedule };
  }
  const { createOperatorToken } = await h.ok<{ createOperatorToken: { token: string } }>(
    'mutation($a: UUID!) { createOperatorToken(agentId: $a) { token } }',
    { a: createAgent.id },
  );
  return { agentId: createAgent.id, producers, operatorToken: createOperatorToken.token };
}

export async function startRun(
  h: Harness,
  producerId: string,
  evidenceBoundary?: string | null,
): Promise<{ runId: string; token: string }> {
  const { startRun: payload } = await h.ok<{ startRun: { token: string; run: { id: string } } }>(
    'mutation($i: StartRunInput!) { startRun(input: $i) { token run { id } } }',
    { i: { producerId, evidenceBoundary: evidenceBoundary ?? null } },
  );
  return { runId: payload.run.id, token: payload.token };
}

export const CREATE_MEMORY = `
  mutation($input: CreateMemoryInput!) {
    createMemory(input: $input) {
      __typename
      ... on CreateMemorySuccess {
        expiresAt
        memory {
          id agentId type scope instruments content metadata timeframe createdAt expiresAt expiryPolicy freshness
          provenance { runId producerId producerName kind schedule evidenceBoundary runStatus }
          links { linkType targetMemoryId }
        }
      }
      ... on MemoryWriteError { message code }
      ... on InvalidMemoryLink { linkIndex }
      ... on InvalidMemoryTarget { instrumentIndex }
      ... on MemoryValidationError { field }
    }
  }`;

export async function writeMemory(h: Harness, token: string, input: Record<string, unknown>) {
  const data = await h.ok<{ createMemory: Record<string, any> }>(CREATE_MEMORY, { input }, token);
  return data.createMemory;
}

/** A run's identity as a remembered caller holds it (W9 tests resolve it while the run is RUNNING). */
export async function runIdentity(h: Harness, runId: string) {
  const run = await h.db.prisma.run.findFirstOrThrow({ where: { id: runId }, include: { producer: true } });
  return { ...run, producerName: run.producer.name };
}

/** Writes and insists on success; returns the memory. */
export async function writeOk(h: Harness, token: string, input: Record<string, unknown>) {
  const result = await writeMemory(h, token, input);
  if (result.__typename !== 'CreateMemorySuccess') throw new Error(`write failed: ${JSON.stringify(result)}`);
  return result.memory as Record<string, any>;
}

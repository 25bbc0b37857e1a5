// S1: how a refusal answers — code, message and HTTP status on every transport — for the access
// rules the schema declares as scopes, and that a context without a caller is UNAUTHENTICATED with
// its reason on every root field before any resolver touches the database.
import { randomUUID } from 'node:crypto';
import { execute, parse, subscribe, type ExecutionResult } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MISSING, type AuthFailure } from '../../src/auth/caller.js';
import { TOKEN_ENDED, toGraphQLError } from '../../src/auth/errors.js';
import { RequestCaller } from '../../src/auth/request-caller.js';
import { UnauthenticatedError } from '../../src/domain/errors.js';
import { schema } from '../../src/schema/index.js';
import type { GraphQLContext } from '../../src/schema/context.js';
import { startHarness, type Harness } from '../support/harness.js';
import {
  buildWorld,
  socketCall,
  socketClient,
  sseCall,
  type CallerKind,
  type World,
} from '../support/matrix.js';

const ADMIN_ONLY = 'This operation needs the admin token';

let h: Harness;
let world: World;
let baseUrl: string;

beforeAll(async () => {
  h = await startHarness();
  baseUrl = `http://127.0.0.1:${(await h.server.listen(0, '127.0.0.1')).port}`;
  world = await buildWorld(h);
});
afterAll(async () => {
  await h?.close();
});

/** A call some callers may not make, and the FORBIDDEN answer they get. */
interface Refusal {
  document: string;
  variables?: () => Record<string, unknown>;
  /** The field the error is on, and what `data` holds beside it. */
  path: (string | number)[];
  data: unknown;
  message: string;
  refused: CallerKind[];
}

const REFUSALS: Record<string, Refusal> = {
  'admin scope: an admin mutation': {
    document: 'mutation { createAgent(input: { name: "refused" }) { id } }',
    path: ['createAgent'],
    data: null,
    message: ADMIN_ONLY,
    refused: ['operatorA', 'reviewRunA'],
  },
  'admin scope: an agent’s operator tokens': {
    document: 'query($id: UUID!) { agent(id: $id) { id operatorTokens { id } } }',
    variables: () => ({ id: world.data.A.agentId }),
    path: ['agent', 'operatorTokens'],
    data: { agent: null },
    message: ADMIN_ONLY,
    refused: ['operatorA', 'analysisRunA'],
  },
  'run scope: writing a record': {
    document: 'mutation { createMemory(input: { type: "note", scope: AGENT, content: "x" }) { __typename } }',
    path: ['createMemory'],
    data: null,
    message: 'createMemory needs a run token',
    refused: ['admin', 'operatorA'],
  },
  'audit scopes: auditing a decision (T3)': {
    document: 'query($id: UUID!) { decisionAudit(decisionId: $id) { decision { id } } }',
    variables: () => ({ id: world.data.A.decisionId }),
    path: ['decisionAudit'],
    data: { decisionAudit: null },
    message: 'Only operators, Review runs and the admin may audit decisions',
    refused: ['analysisRunA', 'tradingRunA'],
  },
};

/** Yoga turns `extensions.http` into the response status over HTTP; a socket message keeps it. */
const expectedBody = (refusal: Refusal, transport: 'HTTP' | 'WebSocket') => ({
  data: refusal.data,
  errors: [
    {
      message: refusal.message,
      path: refusal.path,
      extensions: { code: 'FORBIDDEN', ...(transport === 'WebSocket' ? { http: { status: 403 } } : {}) },
    },
  ],
});

async function post(refusal: Refusal, caller: CallerKind, accept: string) {
  const response = await h.fetch('/graphql', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept,
      authorization: `Bearer ${world.tokens[caller]}`,
    },
    body: JSON.stringify({ query: refusal.document, variables: refusal.variables?.() ?? {} }),
  });
  return { status: response.status, body: await response.json() };
}

describe('S1: refusals answer with the same code, message and HTTP status on every transport', () => {
  for (const [name, refusal] of Object.entries(REFUSALS)) {
    for (const caller of refusal.refused) {
      it(`S1: ${name} as ${caller} — FORBIDDEN, HTTP 403, over HTTP (both media types) and WebSocket`, async () => {
        // Both media types answer 403: Yoga honours the error's http status (ServiceError.extensions()).
        for (const accept of ['application/json', 'application/graphql-response+json']) {
          const answer = await post(refusal, caller, accept);
          expect(answer, accept).toEqual({ status: 403, body: expectedBody(refusal, 'HTTP') });
        }
        const { client } = socketClient(baseUrl, world.tokens[caller]);
        try {
          const variables = refusal.variables?.() ?? {};
          const answer = await socketCall(client, String(refusal.path[0]), refusal.document, variables);
          expect(answer.body).toEqual(expectedBody(refusal, 'WebSocket'));
        } finally {
          await client.dispose();
        }
      });
    }
  }

  it('S1: a run token subscribing is FORBIDDEN with its message over SSE and WebSocket (L1)', async () => {
    const document = 'subscription { memoryAdded { cursor } }';
    const expected = (extensions: Record<string, unknown>) => ({
      errors: [{ message: 'Run tokens cannot subscribe', path: ['memoryAdded'], extensions }],
    });
    const overSse = await sseCall(baseUrl, world.tokens.analysisRunA, 'memoryAdded', document, {});
    expect(overSse.body).toEqual(expected({ code: 'FORBIDDEN' }));
    const { client } = socketClient(baseUrl, world.tokens.analysisRunA);
    try {
      expect((await socketCall(client, 'memoryAdded', document, {})).body).toEqual(
        expected({ code: 'FORBIDDEN', http: { status: 403 } }),
      );
    } finally {
      await client.dispose();
    }
  });
});

/** One call of every root field, arguments valid but naming nothing that exists. */
const id = () => randomUUID();
const ROOT_CALLS: Record<string, string> = {
  viewer: '{ viewer { kind } }',
  agents: '{ agents { id } }',
  agent: `{ agent(id: "${id()}") { id } }`,
  memory: `{ memory(id: "${id()}") { id } }`,
  memories: '{ memories { edges { cursor } } }',
  memoryTypes: '{ memoryTypes { type } }',
  tradingContext: '{ tradingContext(instrument: "ETH") { agentId } }',
  decisionAudit: `{ decisionAudit(decisionId: "${id()}") { decision { id } } }`,
  createMemory: 'mutation { createMemory(input: { type: "t", scope: AGENT, content: "x" }) { __typename } }',
  createAgent: 'mutation { createAgent(input: { name: "a" }) { id } }',
  upsertInstrument: 'mutation { upsertInstrument(input: { id: "ETH" }) { id } }',
  setAgentInstruments: `mutation { setAgentInstruments(agentId: "${id()}", instrumentIds: []) { id } }`,
  createProducer: `mutation { createProducer(input: { agentId: "${id()}", kind: ANALYSIS, name: "p" }) { id } }`,
  setProducerEnabled: `mutation { setProducerEnabled(producerId: "${id()}", enabled: false) { id } }`,
  startRun: `mutation { startRun(input: { producerId: "${id()}" }) { token } }`,
  finishRun: `mutation { finishRun(runId: "${id()}", status: SUCCEEDED) { id } }`,
  createOperatorToken: `mutation { createOperatorToken(agentId: "${id()}") { token } }`,
  revokeOperatorToken: `mutation { revokeOperatorToken(id: "${id()}") { id } }`,
  importMemories: `mutation { importMemories(input: [{ agentId: "${id()}", type: "t", scope: AGENT,
    content: "x", createdAt: "2020-01-01T00:00:00Z" }]) { id } }`,
  memoryAdded: 'subscription { memoryAdded { cursor } }',
  producerHealth: '{ producerHealth { status } }',
  freshnessBoard: '{ freshnessBoard { at } }',
  freshnessTimeline:
    '{ freshnessTimeline(instrument: "ETH", from: "2026-03-02T00:00:00Z", to: "2026-03-02T01:00:00Z") { instrument } }',
  runChanged: 'subscription { runChanged { id } }',
  instruments: '{ instruments { id } }',
  syncInstruments: 'mutation { syncInstruments(meta: { universe: [] }) { unchanged } }',
};

/** A context without a caller whose services fail the test if anything calls them (reading a property is harmless). */
function callerlessContext(authFailure: AuthFailure | null): GraphQLContext {
  const untouchable: object = new Proxy(() => {}, {
    get: () => untouchable,
    apply: () => {
      throw new Error('a service was called before the caller was checked');
    },
  });
  return {
    db: untouchable as GraphQLContext['db'],
    liveDb: untouchable as GraphQLContext['liveDb'],
    budget: untouchable as GraphQLContext['budget'],
    signal: new AbortController().signal,
    endRequest: () => {},
    mcpListCall: false,
    events: untouchable as GraphQLContext['events'],
    feeds: untouchable as GraphQLContext['feeds'],
    sharedLoads: untouchable as GraphQLContext['sharedLoads'],
    sessions: untouchable as GraphQLContext['sessions'],
    metrics: untouchable as GraphQLContext['metrics'],
    auth: new RequestCaller(
      untouchable as GraphQLContext['db'],
      authFailure ? { caller: null, failure: authFailure } : MISSING,
    ),
    caller: null,
    authFailure,
    now: () => new Date(),
  };
}

async function runWithoutCaller(document: string, authFailure: AuthFailure | null): Promise<ExecutionResult> {
  const args = { schema, document: parse(document), contextValue: callerlessContext(authFailure) };
  const result = document.startsWith('subscription') ? await subscribe(args) : await execute(args);
  if (Symbol.asyncIterator in result) throw new Error('a subscription without a caller was accepted');
  return result;
}

describe('S1: without a caller every root field is UNAUTHENTICATED with the reason (behind the gate)', () => {
  it('S1: the calls below cover every root field of the schema', () => {
    const roots = [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()];
    const fields = roots.flatMap((type) => Object.keys(type?.getFields() ?? {}));
    expect(Object.keys(ROOT_CALLS).sort()).toEqual(fields.sort());
  });

  for (const [field, document] of Object.entries(ROOT_CALLS)) {
    it(`S1: ${field} without a caller: UNAUTHENTICATED naming why, 401, the database untouched`, async () => {
      const finished: AuthFailure = { reason: 'inactive', detail: 'run 0f0e is SUCCEEDED' };
      for (const [failure, message, ended] of [
        [finished, 'Not authenticated: run 0f0e is SUCCEEDED', { reason: TOKEN_ENDED }],
        [{ reason: 'unknown' }, 'Not authenticated: unknown token', {}],
        [null, 'Not authenticated: send Authorization: Bearer <token>', {}],
      ] as const) {
        const result = await runWithoutCaller(document, failure);
        expect(result.errors?.map((error) => [error.message, error.path])).toEqual([[message, [field]]]);
        const original = result.errors?.[0]?.originalError;
        expect(original).toBeInstanceOf(UnauthenticatedError);
        // What error masking puts on the wire (toGraphQLError: the one GraphQL mapping of a ServiceError).
        // An ended session says so in `reason` (S6), which the page reads instead of the message.
        expect(toGraphQLError(original as UnauthenticatedError).extensions).toEqual({
          code: 'UNAUTHENTICATED',
          http: { status: 401 },
          ...ended,
        });
      }
    });
  }
});

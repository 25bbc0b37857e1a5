// S1 isolation matrix support: the caller kinds, two agents' data (plus an absent one), and one call
// per transport (HTTP, SSE, WebSocket, REST) reduced to a comparable outcome.
import { randomUUID } from 'node:crypto';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import {
  ADMIN_TOKEN,
  createAgentFixture,
  startRun,
  writeOk,
  type GqlResult,
  type Harness,
} from './harness.js';
import { sseData } from './live.js';
import { mcpRequest } from './mcp.js';

export const CALLER_KINDS = [
  'none',
  'garbage',
  'admin',
  'operatorA',
  'operatorB',
  'analysisRunA',
  'tradingRunA',
  'reviewRunA',
  'finishedRunA',
  'revokedOperatorA',
] as const;
export type CallerKind = (typeof CALLER_KINDS)[number];

export type Transport = 'HTTP' | 'HTTP GET' | 'SSE' | 'WebSocket' | 'REST' | 'MCP';
export type Side = 'own' | 'foreign';

/** The ids a call needs from one agent; `absent` holds ids that exist nowhere. */
export interface AgentData {
  label: 'A' | 'B' | 'absent';
  agentId: string;
  /** An Analysis record targeting ETH, of a type only this agent has (`research_a`). */
  researchId: string;
  /** A trading_decision of the agent's trading producer, linking the research (a review links it). */
  decisionId: string;
  /** A record of another type written by the same Trading run (not a decision). */
  tradingNoteId: string;
  adhocProducerId: string;
  /** The agent's Analysis run (a run id to cite as an import's sourceRunId). */
  runId: string;
  /** The key the agent's Analysis run wrote `{type: matrix_note, scope: AGENT, content: "idempotent write"}` with (W8). */
  idempotencyKey: string;
  /** A new RUNNING run of the agent (finishRun needs one per call). */
  freshRunId(): Promise<string>;
  /** A new operator token of the agent (revokeOperatorToken needs one per call). */
  freshOperatorTokenId(): Promise<string>;
}

export interface World {
  tokens: Record<CallerKind, string | null>;
  data: { A: AgentData; B: AgentData; absent: AgentData };
  /** Every id and name of each agent: none of them may appear in an answer to the other agent's callers. */
  secretsOf: { A: Set<string>; B: Set<string> };
}

/** Whose data is "own" for a caller: B for operator B, A for everyone else (admin: A by convention). */
export function ownAgentOf(caller: CallerKind): 'A' | 'B' {
  return caller === 'operatorB' ? 'B' : 'A';
}

/** The agent whose ids a caller must never see (null: the admin sees every agent). */
export function forbiddenAgentOf(caller: CallerKind): 'A' | 'B' | null {
  if (caller === 'admin') return null;
  return ownAgentOf(caller) === 'A' ? 'B' : 'A';
}

export async function buildWorld(h: Harness): Promise<World> {
  const [a, b] = [await buildAgent(h, 'A'), await buildAgent(h, 'B')];
  const finished = await startRun(h, a.fixture.producers.adhoc!.id);
  await h.ok('mutation($r: UUID!) { finishRun(runId: $r, status: SUCCEEDED) { id } }', { r: finished.runId });
  const revoked = await createOperatorToken(h, a.data.agentId);
  await h.ok('mutation($id: UUID!) { revokeOperatorToken(id: $id) { id } }', { id: revoked.id });
  a.secrets.add(finished.runId).add(revoked.id);
  const absent: AgentData = {
    label: 'absent',
    agentId: randomUUID(),
    researchId: randomUUID(),
    decisionId: randomUUID(),
    tradingNoteId: randomUUID(),
    adhocProducerId: randomUUID(),
    runId: randomUUID(),
    idempotencyKey: 'matrix-key-absent',
    freshRunId: async () => randomUUID(),
    freshOperatorTokenId: async () => randomUUID(),
  };
  return {
    tokens: {
      none: null,
      garbage: 'op_not-a-token-of-this-service',
      admin: ADMIN_TOKEN,
      operatorA: a.fixture.operatorToken,
      operatorB: b.fixture.operatorToken,
      analysisRunA: a.runs.analysis.token,
      tradingRunA: a.runs.trading.token,
      reviewRunA: a.runs.review.token,
      finishedRunA: finished.token,
      revokedOperatorA: revoked.token,
    },
    data: { A: a.data, B: b.data, absent },
    secretsOf: { A: a.secrets, B: b.secrets },
  };
}

async function createOperatorToken(h: Harness, agentId: string): Promise<{ id: string; token: string }> {
  const { createOperatorToken: payload } = await h.ok<{
    createOperatorToken: { token: string; operatorToken: { id: string } };
  }>(
    'mutation($a: UUID!) { createOperatorToken(agentId: $a, label: "matrix") { token operatorToken { id } } }',
    {
      a: agentId,
    },
  );
  return { id: payload.operatorToken.id, token: payload.token };
}

async function buildAgent(h: Harness, label: 'A' | 'B') {
  const name = `matrix-agent-${label}-${randomUUID()}`;
  const fixture = await createAgentFixture(h, { name });
  const runs = {
    analysis: await startRun(h, fixture.producers.adhoc!.id),
    trading: await startRun(h, fixture.producers.trading!.id),
    review: await startRun(h, fixture.producers.review!.id),
  };
  // A type of its own: memoryTypes answers then name the agent they are about.
  const researchType = `research_${label.toLowerCase()}`;
  const research = await writeOk(h, runs.analysis.token, {
    type: researchType,
    scope: 'INSTRUMENTS',
    instruments: ['ETH'],
    content: `research of agent ${label}`,
  });
  const decision = await writeOk(h, runs.trading.token, {
    type: 'trading_decision',
    scope: 'INSTRUMENTS',
    instruments: ['ETH'],
    content: `no trade for agent ${label}`,
    links: [{ targetMemoryId: research.id, linkType: 'considered' }],
  });
  // Something links to the decision (Memory.linkedFrom): a review the Trading run may not read.
  const review = await writeOk(h, runs.review.token, {
    type: 'review',
    scope: 'AGENT',
    content: `review of agent ${label}`,
    links: [{ targetMemoryId: decision.id, linkType: 'reviews' }],
  });
  const tradingNote = await writeOk(h, runs.trading.token, {
    type: 'position_note',
    scope: 'INSTRUMENTS',
    instruments: ['ETH'],
    content: `position kept by agent ${label}`,
  });
  const idempotencyKey = `matrix-key-${label}`;
  const keyed = await writeOk(h, runs.analysis.token, {
    type: 'matrix_note',
    scope: 'AGENT',
    content: 'idempotent write',
    idempotencyKey,
  });
  const secrets = new Set<string>([
    researchType,
    keyed.id as string,
    name,
    fixture.agentId,
    research.id as string,
    decision.id as string,
    review.id as string,
    tradingNote.id as string,
    ...Object.values(fixture.producers).map((p) => p.id),
    ...Object.values(runs).map((r) => r.runId),
  ]);
  const data: AgentData = {
    label,
    agentId: fixture.agentId,
    researchId: research.id as string,
    decisionId: decision.id as string,
    tradingNoteId: tradingNote.id as string,
    adhocProducerId: fixture.producers.adhoc!.id,
    runId: runs.analysis.runId,
    idempotencyKey,
    async freshRunId() {
      const { runId } = await startRun(h, fixture.producers.adhoc!.id);
      secrets.add(runId);
      return runId;
    },
    async freshOperatorTokenId() {
      const { id } = await createOperatorToken(h, fixture.agentId);
      secrets.add(id);
      return id;
    },
  };
  return { fixture, runs, data, secrets };
}

/** What one call answered, reduced to a word the access table uses. */
export interface Answer {
  outcome: string;
  /** The whole answer (for the leak check and the foreign-equals-absent comparison). */
  body: unknown;
}

function isEmptyPage(value: unknown): boolean {
  const edges = (value as { edges?: unknown }).edges;
  return Array.isArray(edges) && edges.length === 0;
}

/** GraphQL answer ⇒ outcome: the first error's code, `null` for a null root field, `empty` for an empty list or page, a write-error member's name, or `ok`. */
export function graphqlOutcome(result: GqlResult, field: string): string {
  const error = result.errors?.[0];
  if (error) return String(error.extensions?.code ?? `error without code: ${error.message}`);
  const value = (result.data as Record<string, unknown> | undefined)?.[field];
  if (value === undefined) return 'no data';
  if (value === null) return 'null';
  // A list or a page with nothing in it: a filter that matches nothing (S1: another agent's ids).
  if (Array.isArray(value) ? value.length === 0 : isEmptyPage(value)) return 'empty';
  const typename = (value as { __typename?: string }).__typename;
  if (typename && typename !== 'CreateMemorySuccess') return typename;
  return 'ok';
}

const restOutcomes: Record<number, string> = {
  200: 'ok',
  201: 'ok',
  400: 'BAD_USER_INPUT',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
};

export async function restCall(
  h: Harness,
  token: string | null,
  request: { method: 'GET' | 'POST'; path: string; body?: unknown },
): Promise<Answer> {
  const response = await h.fetch(request.path, {
    method: request.method,
    headers: {
      ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: request.body !== undefined ? JSON.stringify(request.body) : undefined,
  });
  // Every route answers JSON except /metrics (Prometheus text) and the export (NDJSON: one record a line).
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  const body = (
    type.startsWith('application/x-ndjson')
      ? {
          records: text
            .split('\n')
            .filter(Boolean)
            .map((line) => JSON.parse(line) as unknown),
        }
      : type.includes('json')
        ? JSON.parse(text)
        : { text }
  ) as { code?: string };
  const outcome =
    response.status === 422 && body.code === 'invalid_memory_link'
      ? 'InvalidMemoryLink'
      : (restOutcomes[response.status] ?? `HTTP ${response.status}`);
  return { outcome, body: { status: response.status, body } };
}

/** Tool results and JSON-RPC errors of /mcp ⇒ the table's words (a hidden tool answers like an unknown one). */
function mcpOutcome(status: number, body: any): string {
  if (status === 401) return 'UNAUTHENTICATED';
  if (body.error)
    return /^Tool \S+ not found$/.test(body.error.message) ? 'no such tool' : `rpc ${body.error.code}`;
  if (!body.result?.isError) return 'ok';
  const code = body.result.structuredContent?.code;
  return code === 'not_found' ? 'null' : code === 'invalid_memory_link' ? 'InvalidMemoryLink' : String(code);
}

/** One `tools/call` POSTed to /mcp on its own: the transport is stateless, so no session comes first. */
export async function mcpCall(
  h: Harness,
  token: string | null,
  tool: string,
  args: Record<string, unknown>,
): Promise<Answer> {
  const response = await h.fetch(
    '/mcp',
    mcpRequest(token, { method: 'tools/call', params: { name: tool, arguments: args } }),
  );
  const body = (await response.json()) as unknown;
  return { outcome: mcpOutcome(response.status, body), body: { status: response.status, body } };
}

export async function httpCall(
  h: Harness,
  token: string | null,
  field: string,
  query: string,
  variables: Record<string, unknown>,
): Promise<Answer> {
  const result = await h.gql(query, variables, token);
  return { outcome: graphqlOutcome(result, field), body: result };
}

/** A query as GET /graphql?query=…&variables=… (S2: GET queries execute too). */
export async function httpGetCall(
  h: Harness,
  token: string | null,
  field: string,
  query: string,
  variables: Record<string, unknown>,
): Promise<Answer> {
  const search = new URLSearchParams({ query, variables: JSON.stringify(variables) });
  const response = await h.fetch(`/graphql?${search}`, {
    method: 'GET',
    headers: {
      accept: 'application/graphql-response+json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
  });
  const result = (await response.json()) as GqlResult;
  return { outcome: graphqlOutcome(result, field), body: result };
}

const CALL_TIMEOUT_MS = 5000;

/** A subscription over Server-Sent Events: the first event (a record or an error), then the stream is dropped. */
export async function sseCall(
  baseUrl: string,
  token: string | null,
  field: string,
  query: string,
  variables: Record<string, unknown>,
): Promise<Answer> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), CALL_TIMEOUT_MS);
  try {
    const response = await fetch(`${baseUrl}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify({ query, variables }),
      signal: abort.signal,
    });
    if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
      const result = (await response.json()) as GqlResult;
      return { outcome: graphqlOutcome(result, field), body: result };
    }
    const result = await firstSseEvent(response);
    return result
      ? { outcome: graphqlOutcome(result, field), body: result }
      : { outcome: 'stream ended without an event', body: null };
  } catch (error) {
    if (abort.signal.aborted) return { outcome: 'timeout', body: null };
    throw error;
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
}

async function firstSseEvent(response: Response): Promise<GqlResult | null> {
  for await (const data of sseData(response)) return JSON.parse(data) as GqlResult;
  return null;
}

/** A graphql-ws client that keeps one socket open between operations; counts the sockets it opened. */
export function socketClient(
  baseUrl: string,
  token: string | null,
): { client: Client; sockets: () => number } {
  let opened = 0;
  const client = createClient({
    url: `${baseUrl.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: token ? { authorization: `Bearer ${token}` } : {},
    retryAttempts: 0,
    lazy: true,
    lazyCloseTimeout: 120_000,
    on: { connected: () => void opened++ },
  });
  return { client, sockets: () => opened };
}

/** One operation over a socket: its first result (query, mutation or a subscription's first event) or the close code. */
export function socketCall(
  client: Client,
  field: string,
  query: string,
  variables: Record<string, unknown>,
): Promise<Answer> {
  return new Promise((resolve) => {
    let settled = false;
    let unsubscribe = () => {};
    const settle = (answer: Answer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      unsubscribe();
      resolve(answer);
    };
    const timer = setTimeout(() => settle({ outcome: 'timeout', body: null }), CALL_TIMEOUT_MS);
    unsubscribe = client.subscribe(
      { query, variables },
      {
        next: (result) => settle({ outcome: graphqlOutcome(result as GqlResult, field), body: result }),
        error: (error) => {
          const code = (error as { code?: unknown }).code;
          if (typeof code === 'number') settle({ outcome: `closed ${code}`, body: { closed: code } });
          else {
            // Errors refused by onSubscribe arrive as a GraphQLError list.
            const errors = (Array.isArray(error) ? error : [error]) as GqlResult['errors'];
            settle({ outcome: graphqlOutcome({ errors }, field), body: { errors } });
          }
        },
        complete: () => settle({ outcome: 'completed without a result', body: null }),
      },
    );
    if (settled) unsubscribe();
  });
}

/** The secrets of one agent that occur in an answer (S1: none for that agent's outsiders). */
export function mentionedSecrets(answer: Answer, secrets: Set<string>): string[] {
  const text = JSON.stringify(answer.body);
  return [...secrets].filter((secret) => text.includes(secret));
}

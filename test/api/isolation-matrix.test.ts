// S1: the isolation matrix, generated — every schema field and REST route × every caller kind ×
// own/foreign data × every transport, compared with ONE declared access table.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Kind, parse, TypeInfo, validate, visit, visitWithTypeInfo, type GraphQLObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPABILITIES, MCP_ROLES, may, type Capability, type Role } from '../../src/auth/access-table.js';
import { encodeCursor } from '../../src/domain/cursor.js';
import { TOOLS } from '../../src/mcp/tools.js';
import { schema } from '../../src/schema/index.js';
import { startHarness, type Harness } from '../support/harness.js';
import {
  buildWorld,
  CALLER_KINDS,
  forbiddenAgentOf,
  httpCall,
  httpGetCall,
  mcpCall,
  mentionedSecrets,
  ownAgentOf,
  restCall,
  socketCall,
  socketClient,
  sseCall,
  type AgentData,
  type Answer,
  type CallerKind,
  type Side,
  type Transport,
  type World,
} from '../support/matrix.js';

// Outcomes: `ok` (a non-null answer), `nul` (null), an error code (ILNK: an import item's link error),
// or a write-error member (LNK: the InvalidMemoryLink of createMemory / the REST 422); a pair is
// [own data, foreign data]. Every non-ok answer on foreign data must equal the answer for ids that
// exist nowhere (no existence oracle), and no answer to a non-admin may contain the other agent's ids.
const ok = 'ok';
const nul = 'null';
const UNA = 'UNAUTHENTICATED';
const FBD = 'FORBIDDEN';
const BAD = 'BAD_USER_INPUT';
/** A list or page with nothing in it (a filter naming another agent's producer matches nothing). */
const EMP = 'empty';
const LNK = 'InvalidMemoryLink';
const ILNK = 'invalid_memory_link';
/** MCP: a tool the caller may not use is refused exactly like a tool that does not exist. */
const NOT = 'no such tool';
type Outcome =
  | typeof ok
  | typeof nul
  | typeof EMP
  | typeof UNA
  | typeof FBD
  | typeof BAD
  | typeof LNK
  | typeof ILNK
  | typeof NOT;
type Cell = Outcome | readonly [own: Outcome, foreign: Outcome];
/**
 * One operation's expectations: `needs` is the capability of the access table it needs (src/auth/
 * access-table.ts, or `public`); `admin` is the answer to the admin token and `token` to every other
 * token whose role has the capability; `denied` the answer to a token whose role lacks it (an MCP
 * tool the caller may not see is NOT, like one that does not exist). `TRADING`: a Trading run's
 * answer where its reads by id are narrowed (§1: only its own producer's trading decisions).
 * Callers without a valid token are UNAUTHENTICATED everywhere but on public routes.
 */
interface Row {
  needs: Capability | 'public';
  admin?: Cell;
  token?: Cell;
  denied?: Cell;
  TRADING?: Cell;
}

/**
 * S1, §1 Callers, api-contract: every root field and route. Who has which capability is the access
 * table's; what a caller that has it (or not) gets is stated here. "own" is the caller's agent (B for
 * operator B, A for everyone else, A for admin); "foreign" is the other agent. Agent-free operations
 * have one cell.
 */
// prettier-ignore
const ACCESS = {
  // Who am I, which agents (agents: own agent only for non-admin — the leak check proves "only").
  viewer:                  { needs: 'identify', admin: ok, token: ok },
  agents:                  { needs: 'identify', admin: ok, token: ok },
  agent:                   { needs: 'identify', admin: ok, token: [ok, nul] },
  'agent:operatorTokens':  { needs: 'administer', admin: ok, denied: [FBD, nul] },
  // B7: runs are the desk's (operators, Review runs, the admin), not Analysis or Trading runs'.
  'agent:runs':            { needs: 'desk', admin: ok, token: [ok, nul], denied: [FBD, nul] },
  'agent:producerRuns':    { needs: 'desk', admin: ok, token: [ok, nul], denied: [FBD, nul] },
  'agent:health':          { needs: 'desk', admin: ok, token: [ok, nul], denied: [FBD, nul] },
  // Reads of records (§1): a Trading run reads only the trading context and its own (its producer's)
  // trading decisions — not Analysis research, not its producer's other records.
  memory:                  { needs: 'record', admin: ok, token: [ok, nul], TRADING: nul },
  'memory:decision':       { needs: 'record', admin: ok, token: [ok, nul] },
  'memory:tradingNote':    { needs: 'record', admin: ok, token: [ok, nul], TRADING: nul },
  // Memory.linkedFrom: what links to a record, under the same read rules (memory-backlinks.test.ts
  // proves a Trading run's list leaves out the review it may not read).
  'memory:linkedFrom':     { needs: 'record', admin: ok, token: [ok, nul], TRADING: nul },
  'memory:decisionLinkedFrom': { needs: 'record', admin: ok, token: [ok, nul] },
  // own = agentId implied by the token (admin must pass it); foreign = agentId of the other agent.
  memories:                { needs: 'browse', admin: [BAD, ok], token: [ok, FBD], denied: FBD },
  memoryTypes:             { needs: 'browse', admin: [BAD, ok], token: [ok, FBD], denied: FBD },
  // The caller's own agent filtered by a producer of `d`: another agent's producer matches nothing.
  'memories:producerIds':  { needs: 'browse', admin: [ok, EMP], token: [ok, EMP], denied: FBD },
  'memoryTypes:producerIds': { needs: 'browse', admin: [ok, EMP], token: [ok, EMP], denied: FBD },
  // M11: the instrument catalog is reference data (D1): every token reads it.
  instruments:             { needs: 'instruments', admin: ok, token: ok },
  tradingContext:          { needs: 'context', admin: [BAD, ok], token: [ok, FBD] },
  // B8–B10: the desk's reads, like tradingContext for operators and Review runs; not Analysis or Trading runs.
  producerHealth:          { needs: 'desk', admin: [BAD, ok], token: [ok, FBD], denied: FBD },
  freshnessBoard:          { needs: 'desk', admin: [BAD, ok], token: [ok, FBD], denied: FBD },
  freshnessTimeline:       { needs: 'desk', admin: [BAD, ok], token: [ok, FBD], denied: FBD },
  decisionAudit:           { needs: 'audit', admin: ok, token: [ok, nul], denied: FBD },
  // Writes: runs only; a link to the other agent's record is the same 422 as a nonexistent one (W4).
  createMemory:            { needs: 'write', token: [ok, LNK], denied: FBD },
  'POST /api/v1/memories': { needs: 'write', token: [ok, LNK], denied: FBD },
  // The export reads what `memories` reads (B12); foreign = agent_id of the other agent.
  'GET /api/v1/export':    { needs: 'browse', admin: [BAD, ok], token: [ok, FBD], denied: FBD },
  // W8: an idempotency key of the other agent's producer is simply a new key (a new record, never theirs).
  'createMemory:key':      { needs: 'write', token: ok, denied: FBD },
  // The scheduler's operations: admin token only.
  createAgent:             { needs: 'administer', admin: ok, denied: FBD },
  upsertInstrument:        { needs: 'administer', admin: ok, denied: FBD },
  syncInstruments:         { needs: 'administer', admin: ok, denied: FBD },
  setAgentInstruments:     { needs: 'administer', admin: ok, denied: FBD },
  createProducer:          { needs: 'administer', admin: ok, denied: FBD },
  setProducerEnabled:      { needs: 'administer', admin: ok, denied: FBD },
  startRun:                { needs: 'administer', admin: ok, denied: FBD },
  finishRun:               { needs: 'administer', admin: ok, denied: FBD },
  createOperatorToken:     { needs: 'administer', admin: ok, denied: FBD },
  revokeOperatorToken:     { needs: 'administer', admin: ok, denied: FBD },
  importMemories:          { needs: 'administer', admin: ok, denied: FBD },
  // I2, I3: an import into one agent may not link to, or cite a run of, another agent.
  'importMemories:link':   { needs: 'administer', admin: [ok, ILNK], denied: FBD },
  'importMemories:run':    { needs: 'administer', admin: [ok, BAD], denied: FBD },
  // Live updates: operators (and the admin naming the agent); run tokens may not subscribe.
  memoryAdded:             { needs: 'subscribe', admin: ok, token: [ok, FBD], denied: FBD },
  // B7: run changes, subscribed like memoryAdded (the call triggers a run change of `d`).
  runChanged:              { needs: 'subscribe', admin: ok, token: [ok, FBD], denied: FBD },
  // MCP tools (POST /mcp, tools/call): the capability of the field they run; the admin token has no tool.
  'POST /mcp write_memory':          { needs: 'write', token: [ok, LNK], denied: NOT },
  'POST /mcp list_instruments':      { needs: 'instruments', token: ok, denied: NOT },
  'POST /mcp get_trading_context':   { needs: 'context', token: ok, denied: NOT },
  'POST /mcp list_memories':         { needs: 'browse', token: ok, denied: NOT },
  'POST /mcp list_memory_types':     { needs: 'browse', token: ok, denied: NOT },
  'POST /mcp get_memory':            { needs: 'record', token: [ok, nul], denied: NOT, TRADING: nul },
  'POST /mcp get_memory:decision':   { needs: 'record', token: [ok, nul], denied: NOT },
  'POST /mcp get_decision_audit':    { needs: 'audit', token: [ok, nul], denied: NOT },
  'POST /mcp get_producer_health':   { needs: 'desk', token: ok, denied: NOT },
  // Public routes: every caller, with a token or without.
  'GET /healthz':          { needs: 'public' },
  'GET /readyz':           { needs: 'public' },
  // Prometheus scrapes without a token: no label names an agent, a record or a token.
  'GET /metrics':          { needs: 'public' },
} as const satisfies Record<string, Row>;

/** L4: on a WebSocket these callers never get as far as an operation; connection_init is closed. */
const SOCKET_REFUSAL: Partial<Record<CallerKind, number>> = {
  none: 4401,
  garbage: 4401,
  finishedRunA: 4403,
  revokedOperatorA: 4403,
};

type Operation = keyof typeof ACCESS;
type Vars = Record<string, unknown>;

/** One representative call per operation; `d` is the data of the side being tested, `side` which one. */
interface GraphQLCall {
  document: string;
  /** A write of the caller's token: its answer is about the caller's agent, whatever `d` it points at. */
  writesForCaller?: true;
  /** `own` is the caller's own agent (cross-agent calls act for it and point at `d`). */
  variables?: (d: AgentData, side: Side, own: AgentData) => Vars | Promise<Vars>;
  /**
   * A subscription whose first event is not replayed: called every TRIGGER_EVERY_MS while the call
   * waits, so an accepted subscription gets its event and a refused one answers without it.
   */
  trigger?: (d: AgentData) => Promise<unknown>;
}
const TRIGGER_EVERY_MS = 200;
interface RestCall {
  writesForCaller?: true;
  method: 'GET' | 'POST';
  /** A function when the path names the agent (like `namedOnForeign`). */
  path: string | ((d: AgentData, side: Side) => string);
  body?: (d: AgentData) => unknown;
  /** A tools/call on /mcp: the tool and its arguments. */
  mcp?: { tool: string; args: (d: AgentData) => Record<string, unknown> };
}

const unique = () => randomUUID().slice(0, 8);
/** The input each agent's Analysis run first wrote with its idempotency key (matrix.ts). */
const IDEMPOTENT_WRITE = { type: 'matrix_note', scope: 'AGENT', content: 'idempotent write' };
/** A position before every record: a subscription's first event is the agent's oldest record (L2 replay). */
const FROM_THE_START = encodeCursor({ createdAt: new Date(0), id: '00000000-0000-4000-8000-000000000000' });
/** own ⇒ the token implies the agent (no agentId); foreign ⇒ the other agent named explicitly. */
const namedOnForeign = (d: AgentData, side: Side) => ({ a: side === 'own' ? null : d.agentId });

const CALLS: Record<Exclude<Operation, `${string} /${string}`>, GraphQLCall> = {
  viewer: { document: '{ viewer { kind agent { id name } run { id } } }' },
  agents: { document: '{ agents { id name producers { id } } }' },
  agent: {
    document: 'query($id: UUID!) { agent(id: $id) { id name instruments producers { id name } } }',
    variables: (d) => ({ id: d.agentId }),
  },
  'agent:operatorTokens': {
    document: 'query($id: UUID!) { agent(id: $id) { id operatorTokens { id label } } }',
    variables: (d) => ({ id: d.agentId }),
  },
  'agent:runs': {
    document:
      'query($id: UUID!) { agent(id: $id) { id runs(first: 5) { edges { node { id recordCount empty } } } } }',
    variables: (d) => ({ id: d.agentId }),
  },
  'agent:health': {
    document:
      'query($id: UUID!) { agent(id: $id) { id health { instrumentsSelected producersHealthy recordsLast24h } } }',
    variables: (d) => ({ id: d.agentId }),
  },
  'agent:producerRuns': {
    document:
      'query($id: UUID!) { agent(id: $id) { id producers { id runs(first: 5) { edges { node { id status } } } } } }',
    variables: (d) => ({ id: d.agentId }),
  },
  memory: {
    document:
      'query($id: UUID!) { memory(id: $id) { id agentId content provenance { runId } links { targetMemoryId } } }',
    variables: (d) => ({ id: d.researchId }),
  },
  'memory:decision': {
    document: 'query($id: UUID!) { memory(id: $id) { id agentId content links { targetMemoryId } } }',
    variables: (d) => ({ id: d.decisionId }),
  },
  'memory:tradingNote': {
    document: 'query($id: UUID!) { memory(id: $id) { id agentId content } }',
    variables: (d) => ({ id: d.tradingNoteId }),
  },
  'memory:linkedFrom': {
    document:
      'query($id: UUID!) { memory(id: $id) { id agentId linkedFrom { linkType sourceMemoryId sourceType } } }',
    variables: (d) => ({ id: d.researchId }),
  },
  'memory:decisionLinkedFrom': {
    document:
      'query($id: UUID!) { memory(id: $id) { id agentId linkedFrom { linkType sourceMemoryId sourceCreatedAt } } }',
    variables: (d) => ({ id: d.decisionId }),
  },
  memories: {
    document: 'query($a: UUID) { memories(agentId: $a, first: 10) { edges { cursor node { id agentId } } } }',
    variables: namedOnForeign,
  },
  memoryTypes: {
    document: 'query($a: UUID) { memoryTypes(agentId: $a) { type count } }',
    variables: namedOnForeign,
  },
  'memories:producerIds': {
    document: `query($a: UUID, $f: MemoryFilter) {
      memories(agentId: $a, filter: $f, first: 10) { edges { cursor node { id agentId } } } }`,
    variables: (d, _side, own) => ({ a: own.agentId, f: { producerIds: [d.adhocProducerId] } }),
  },
  'memoryTypes:producerIds': {
    document: 'query($a: UUID, $f: MemoryFilter) { memoryTypes(agentId: $a, filter: $f) { type count } }',
    variables: (d, _side, own) => ({ a: own.agentId, f: { producerIds: [d.adhocProducerId] } }),
  },
  instruments: { document: '{ instruments { id active } }' },
  tradingContext: {
    document: `query($a: UUID) { tradingContext(agentId: $a, instrument: "ETH") {
      agentId entries { memoryId research { content } } corrections { memoryId } learnings { id } } }`,
    variables: namedOnForeign,
  },
  producerHealth: {
    document: `query($a: UUID) { producerHealth(agentId: $a, window: { rolling: LAST_24H }) {
      producer { id } status lastRun { id recordCount } cyclesExpected missedBoundaries } }`,
    variables: namedOnForeign,
  },
  freshnessBoard: {
    document: `query($a: UUID) { freshnessBoard(agentId: $a) {
      instruments { instrument groups { producer { id } type state memoryId } latestDecision { id agentId } } } }`,
    variables: namedOnForeign,
  },
  freshnessTimeline: {
    document: `query($a: UUID, $from: DateTime!, $to: DateTime!) {
      freshnessTimeline(agentId: $a, instrument: "ETH", from: $from, to: $to) {
        lanes { producer { id } type intervals { memoryId } } decisions { id agentId } } }`,
    // A range around the world's records (written on the real clock).
    variables: (d, side) => ({
      ...namedOnForeign(d, side),
      from: new Date(Date.now() - 3 * 86_400_000).toISOString(),
      to: new Date(Date.now() + 86_400_000).toISOString(),
    }),
  },
  decisionAudit: {
    document: `query($id: UUID!) { decisionAudit(decisionId: $id) {
      decision { id agentId } linked { id agentId } contexts { agentId entries { memoryId } }
      considered { memoryId memory { id } inContextAtDecision notInContextReason } } }`,
    variables: (d) => ({ id: d.decisionId }),
  },
  createMemory: {
    writesForCaller: true,
    document: `mutation($input: CreateMemoryInput!) { createMemory(input: $input) {
      __typename ... on CreateMemorySuccess { memory { id agentId links { targetMemoryId } } }
      ... on MemoryWriteError { code message } ... on InvalidMemoryLink { linkIndex } } }`,
    variables: (d) => ({
      input: {
        type: 'matrix_note',
        scope: 'AGENT',
        content: 'written by the isolation matrix',
        links: [{ targetMemoryId: d.researchId, linkType: 'supports' }],
      },
    }),
  },
  'createMemory:key': {
    writesForCaller: true,
    document: `mutation($input: CreateMemoryInput!) { createMemory(input: $input) {
      __typename ... on CreateMemorySuccess { memory { id agentId } } ... on MemoryWriteError { code message } } }`,
    variables: (d) => ({ input: { ...IDEMPOTENT_WRITE, idempotencyKey: d.idempotencyKey } }),
  },
  createAgent: {
    document: 'mutation($n: String!) { createAgent(input: { name: $n }) { id } }',
    variables: () => ({ n: `matrix-new-${unique()}` }),
  },
  upsertInstrument: {
    document: 'mutation { upsertInstrument(input: { id: "ETH", active: true }) { id active } }',
  },
  // A builder dex of its own, so the world's main-dex instruments stay active for the other rows.
  syncInstruments: {
    document: 'mutation($m: JSON!) { syncInstruments(meta: $m, dex: "mx") { added unchanged } }',
    variables: () => ({ m: { universe: [{ name: 'mx:AAA', szDecimals: 2, maxLeverage: 5 }] } }),
  },
  setAgentInstruments: {
    document:
      'mutation($a: UUID!) { setAgentInstruments(agentId: $a, instrumentIds: ["BTC", "ETH", "SOL"]) { id instruments } }',
    variables: (d) => ({ a: d.agentId }),
  },
  createProducer: {
    document: 'mutation($i: CreateProducerInput!) { createProducer(input: $i) { id agentId } }',
    variables: (d) => ({ i: { agentId: d.agentId, kind: 'ANALYSIS', name: `matrix-${unique()}` } }),
  },
  setProducerEnabled: {
    document: 'mutation($p: UUID!) { setProducerEnabled(producerId: $p, enabled: true) { id enabled } }',
    variables: (d) => ({ p: d.adhocProducerId }),
  },
  startRun: {
    document: 'mutation($p: UUID!) { startRun(input: { producerId: $p }) { token run { id agentId } } }',
    variables: (d) => ({ p: d.adhocProducerId }),
  },
  finishRun: {
    document: 'mutation($r: UUID!) { finishRun(runId: $r, status: CANCELLED) { id status } }',
    variables: async (d) => ({ r: await d.freshRunId() }),
  },
  createOperatorToken: {
    document: 'mutation($a: UUID!) { createOperatorToken(agentId: $a, label: "matrix") { token agentId } }',
    variables: (d) => ({ a: d.agentId }),
  },
  revokeOperatorToken: {
    document: 'mutation($id: UUID!) { revokeOperatorToken(id: $id) { id revokedAt } }',
    variables: async (d) => ({ id: await d.freshOperatorTokenId() }),
  },
  importMemories: {
    document: 'mutation($input: [ImportMemoryInput!]!) { importMemories(input: $input) { id agentId } }',
    variables: (d) => ({
      input: [
        {
          agentId: d.agentId,
          type: 'legacy_note',
          scope: 'AGENT',
          content: 'imported by the isolation matrix',
          createdAt: '2020-01-01T00:00:00Z',
        },
      ],
    }),
  },
  'importMemories:link': {
    document: 'mutation($input: [ImportMemoryInput!]!) { importMemories(input: $input) { id agentId } }',
    variables: (d, _side, own) => ({
      input: [
        {
          agentId: own.agentId,
          type: 'legacy_note',
          scope: 'AGENT',
          content: 'imported with a link',
          createdAt: '2020-01-02T00:00:00Z',
          links: [{ targetMemoryId: d.researchId, linkType: 'supports' }],
        },
      ],
    }),
  },
  'importMemories:run': {
    document: 'mutation($input: [ImportMemoryInput!]!) { importMemories(input: $input) { id agentId } }',
    variables: (d, _side, own) => ({
      input: [
        {
          agentId: own.agentId,
          type: 'legacy_note',
          scope: 'AGENT',
          content: 'imported with provenance',
          createdAt: '2020-01-03T00:00:00Z',
          sourceRunId: d.runId,
        },
      ],
    }),
  },
  memoryAdded: {
    document:
      'subscription($a: UUID, $after: String) { memoryAdded(agentId: $a, after: $after) { cursor node { id agentId } } }',
    variables: (d) => ({ a: d.agentId, after: FROM_THE_START }),
  },
  runChanged: {
    document: 'subscription($a: UUID) { runChanged(agentId: $a) { id agentId status recordCount } }',
    variables: (d) => ({ a: d.agentId }),
    trigger: (d) => d.freshRunId(),
  },
};

/** A write (REST body, MCP arguments) linking to the research of `d`: the other agent's must fail like none (W4). */
const writeLinkingTo = (d: AgentData, via: string) => ({
  type: 'matrix_note',
  scope: 'AGENT',
  content: `written by the isolation matrix over ${via}`,
  links: [{ target_memory_id: d.researchId, link_type: 'supports' }],
});
const mcpRoute = (tool: string, args: (d: AgentData) => Record<string, unknown>): RestCall => ({
  method: 'POST',
  path: '/mcp',
  mcp: { tool, args },
});

const ROUTES: Record<Extract<Operation, `${string} /${string}`>, RestCall> = {
  'POST /api/v1/memories': {
    writesForCaller: true,
    method: 'POST',
    path: '/api/v1/memories',
    body: (d) => writeLinkingTo(d, 'REST'),
  },
  // The tool's arguments are the REST body.
  'POST /mcp write_memory': {
    ...mcpRoute('write_memory', (d) => writeLinkingTo(d, 'MCP')),
    writesForCaller: true,
  },
  'POST /mcp list_instruments': mcpRoute('list_instruments', () => ({})),
  'POST /mcp get_trading_context': mcpRoute('get_trading_context', () => ({ instrument: 'ETH' })),
  'POST /mcp list_memories': mcpRoute('list_memories', () => ({ first: 10 })),
  'POST /mcp list_memory_types': mcpRoute('list_memory_types', () => ({})),
  'POST /mcp get_memory': mcpRoute('get_memory', (d) => ({ id: d.researchId })),
  'POST /mcp get_memory:decision': mcpRoute('get_memory', (d) => ({ id: d.decisionId })),
  'POST /mcp get_decision_audit': mcpRoute('get_decision_audit', (d) => ({ decision_id: d.decisionId })),
  'POST /mcp get_producer_health': mcpRoute('get_producer_health', () => ({ window: '24h' })),
  'GET /api/v1/export': {
    method: 'GET',
    path: (d, side) => `/api/v1/export?format=ndjson${side === 'own' ? '' : `&agent_id=${d.agentId}`}`,
  },
  'GET /healthz': { method: 'GET', path: '/healthz' },
  'GET /readyz': { method: 'GET', path: '/readyz' },
  'GET /metrics': { method: 'GET', path: '/metrics' },
};

const rootTypes = [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].filter(
  (type): type is GraphQLObjectType => Boolean(type),
);
const fieldOf = (operation: string) => operation.split(':')[0]!;
const isQuery = (operation: string) => Boolean(schema.getQueryType()?.getFields()[fieldOf(operation)]);
const isSubscription = (operation: string) =>
  Boolean(schema.getSubscriptionType()?.getFields()[fieldOf(operation)]);

const specOf = (operation: Operation): GraphQLCall | RestCall =>
  operation in ROUTES ? ROUTES[operation as keyof typeof ROUTES] : CALLS[operation as keyof typeof CALLS];

function transportsOf(operation: Operation): Transport[] {
  if (operation in ROUTES) return ROUTES[operation as keyof typeof ROUTES].mcp ? ['MCP'] : ['REST'];
  if (isSubscription(operation)) return ['SSE', 'WebSocket'];
  return isQuery(operation) ? ['HTTP', 'HTTP GET', 'WebSocket'] : ['HTTP', 'WebSocket'];
}

/** Operations whose call names no agent's data: only the "own" side exists, and their cells are single. */
const AGENT_FREE: readonly Operation[] = [
  'viewer',
  'agents',
  'instruments',
  'POST /mcp list_instruments',
  'POST /mcp get_trading_context',
  'POST /mcp list_memories',
  'POST /mcp list_memory_types',
  'POST /mcp get_producer_health',
  'createAgent',
  'upsertInstrument',
  'syncInstruments',
  'GET /healthz',
  'GET /readyz',
  'GET /metrics',
];
const sidesOf = (operation: Operation): Side[] =>
  AGENT_FREE.includes(operation) ? ['own'] : ['own', 'foreign'];

/** The role of each caller kind with a valid token (null: none, an unknown one, or one that ended). */
const ROLE_OF: Record<CallerKind, Role | null> = {
  none: null,
  garbage: null,
  admin: 'admin',
  operatorA: 'operator',
  operatorB: 'operator',
  analysisRunA: 'ANALYSIS',
  tradingRunA: 'TRADING',
  reviewRunA: 'REVIEW',
  finishedRunA: null,
  revokedOperatorA: null,
};

/** The cell of `operation` for `caller`: its role's capabilities come from the access table. */
function cellOf(operation: Operation, caller: CallerKind): Cell {
  const row: Row = ACCESS[operation];
  const role = ROLE_OF[caller];
  if (row.needs === 'public') return ok;
  if (role === null) return UNA;
  const mcp = operation in ROUTES && ROUTES[operation as keyof typeof ROUTES].mcp !== undefined;
  const granted = may(role, row.needs) && (!mcp || MCP_ROLES.includes(role));
  const cell = !granted
    ? row.denied
    : role === 'admin'
      ? row.admin
      : role === 'TRADING'
        ? (row.TRADING ?? row.token)
        : row.token;
  if (cell === undefined)
    throw new Error(`${operation}: no cell for ${caller} (${granted ? 'granted' : 'denied'})`);
  return cell;
}

function expectedOutcome(operation: Operation, caller: CallerKind, side: Side, transport: Transport): string {
  const cell = cellOf(operation, caller);
  const outcome: string = typeof cell === 'string' ? cell : cell[side === 'own' ? 0 : 1];
  const refusal = SOCKET_REFUSAL[caller];
  return transport === 'WebSocket' && refusal !== undefined ? `closed ${refusal}` : outcome;
}

let h: Harness;
let world: World;
let baseUrl: string;
const sockets = new Map<CallerKind, ReturnType<typeof socketClient>>();

beforeAll(async () => {
  h = await startHarness();
  const address = await h.server.listen(0, '127.0.0.1');
  baseUrl = `http://127.0.0.1:${address.port}`;
  world = await buildWorld(h);
});
afterAll(async () => {
  for (const { client } of sockets.values()) await client.dispose();
  await h?.close();
});

/** One socket per accepted caller kind for the whole file; refused callers get a new one per call (closed at init). */
async function overSocket(caller: CallerKind, field: string, document: string, variables: Vars) {
  if (SOCKET_REFUSAL[caller] !== undefined) {
    const once = socketClient(baseUrl, world.tokens[caller]);
    try {
      return await socketCall(once.client, field, document, variables);
    } finally {
      await once.client.dispose();
    }
  }
  let entry = sockets.get(caller);
  if (!entry) sockets.set(caller, (entry = socketClient(baseUrl, world.tokens[caller])));
  return socketCall(entry.client, field, document, variables);
}

async function call(
  operation: Operation,
  caller: CallerKind,
  transport: Transport,
  d: AgentData,
  side: Side,
): Promise<Answer> {
  const token = world.tokens[caller];
  if (transport === 'REST' || transport === 'MCP') {
    const route = ROUTES[operation as keyof typeof ROUTES];
    if (route.mcp) return mcpCall(h, token, route.mcp.tool, route.mcp.args(d));
    const path = typeof route.path === 'string' ? route.path : route.path(d, side);
    return restCall(h, token, { method: route.method, path, body: route.body?.(d) });
  }
  const spec = CALLS[operation as keyof typeof CALLS];
  const variables = (await spec.variables?.(d, side, world.data[ownAgentOf(caller)])) ?? {};
  const field = fieldOf(operation);
  if (transport === 'HTTP') return httpCall(h, token, field, spec.document, variables);
  if (transport === 'HTTP GET') return httpGetCall(h, token, field, spec.document, variables);
  const { trigger } = spec;
  const timer = trigger ? setInterval(() => void trigger(d), TRIGGER_EVERY_MS) : undefined;
  try {
    if (transport === 'SSE') return await sseCall(baseUrl, token, field, spec.document, variables);
    return await overSocket(caller, field, spec.document, variables);
  } finally {
    clearInterval(timer);
  }
}

/** The data a side names: own = the caller's agent; foreign = the other agent. */
function dataOf(caller: CallerKind, side: Side): AgentData {
  const own = ownAgentOf(caller);
  return world.data[side === 'own' ? own : own === 'A' ? 'B' : 'A'];
}

describe('S1: the access table covers the whole API', () => {
  it('S1: every schema field has an entry in the access table', () => {
    const schemaFields = rootTypes.flatMap((type) => Object.keys(type.getFields())).sort();
    const tableFields = [
      ...new Set(
        Object.keys(ACCESS)
          .filter((operation) => !(operation in ROUTES))
          .map(fieldOf),
      ),
    ].sort();
    // A field added later without an entry fails here, and so does an entry for a removed field.
    expect(tableFields).toEqual(schemaFields);
  });

  it('S1: every declared call is a valid document that selects its own field', () => {
    for (const [operation, spec] of Object.entries(CALLS)) {
      const document = parse(spec.document);
      expect(validate(schema, document), operation).toEqual([]);
      const [definition] = document.definitions;
      const roots =
        definition?.kind === Kind.OPERATION_DEFINITION
          ? definition.selectionSet.selections.map((s) => (s.kind === Kind.FIELD ? s.name.value : s.kind))
          : [];
      expect(roots, operation).toEqual([fieldOf(operation)]);
    }
  });

  it('S1: operations that name no agent have one outcome per caller', () => {
    for (const operation of AGENT_FREE) {
      for (const caller of CALLER_KINDS) expect(typeof cellOf(operation, caller), operation).toBe('string');
    }
  });

  it('S1: callers refused at connection_init are UNAUTHENTICATED in every row of the table (L4, S6)', () => {
    for (const operation of Object.keys(ACCESS) as Operation[]) {
      if (operation in ROUTES) continue;
      for (const caller of Object.keys(SOCKET_REFUSAL) as CallerKind[]) {
        expect(cellOf(operation, caller), `${operation} as ${caller}`).toBe(UNA);
      }
    }
  });

  it('S1: each row needs the capability its field or tool declares, and every capability is exercised', () => {
    for (const [operation, row] of Object.entries(ACCESS) as [Operation, Row][]) {
      const route = operation in ROUTES ? ROUTES[operation as keyof typeof ROUTES] : null;
      if (route?.mcp) {
        expect(TOOLS.find((tool) => tool.name === route.mcp!.tool)?.needs, operation).toBe(row.needs);
      } else if (!route) {
        // The deepest field of the call that declares scopes (Agent.runs within agent(id) …) is what it needs.
        const typeInfo = new TypeInfo(schema);
        const declared: string[][] = [];
        visit(
          parse(CALLS[operation as keyof typeof CALLS].document),
          visitWithTypeInfo(typeInfo, {
            Field() {
              const options = typeInfo.getFieldDef()?.extensions.pothosOptions as { authScopes?: object };
              if (options?.authScopes) declared.push(Object.keys(options.authScopes));
            },
          }),
        );
        expect(declared.at(-1), operation).toEqual([row.needs]);
      }
    }
    const needed = new Set(Object.values(ACCESS).map((row: Row) => row.needs));
    for (const capability of CAPABILITIES) expect(needed, capability).toContain(capability);
  });
});

for (const operation of Object.keys(ACCESS) as Operation[]) {
  describe(`S1: ${operation}`, () => {
    for (const transport of transportsOf(operation)) {
      for (const caller of CALLER_KINDS) {
        for (const side of sidesOf(operation)) {
          const expected = () => expectedOutcome(operation, caller, side, transport);
          it(`S1: ${operation} as ${caller} on ${side} over ${transport}`, async () => {
            const d = dataOf(caller, side);
            const answer = await call(operation, caller, transport, d, side);
            expect(answer.outcome, JSON.stringify(answer.body)).toBe(expected());
            // S1: nothing of the other agent ever appears in an answer to a non-admin caller.
            const outsider = forbiddenAgentOf(caller);
            if (outsider) expect(mentionedSecrets(answer, world.secretsOf[outsider])).toEqual([]);
            // An ok answer is about the agent it was asked about (not an empty or wrong answer).
            if (answer.outcome === ok && !AGENT_FREE.includes(operation)) {
              const subject = specOf(operation).writesForCaller ? ownAgentOf(caller) : (d.label as 'A' | 'B');
              expect(mentionedSecrets(answer, world.secretsOf[subject])).not.toEqual([]);
            }
            // A subscription's first event is about the agent it was opened for (a record, a run).
            if (answer.outcome === ok && isSubscription(operation)) {
              const data = (
                answer.body as { data: Record<string, { agentId?: string; node?: { agentId: string } }> }
              ).data[fieldOf(operation)]!;
              expect(data.node?.agentId ?? data.agentId).toBe(d.agentId);
            }
            // S1: a foreign id answers exactly like a nonexistent one (no existence oracle).
            if ((side === 'foreign' && answer.outcome !== ok) || answer.outcome === nul) {
              const absent = await call(operation, caller, transport, world.data.absent, side);
              expect(absent.body).toEqual(answer.body);
            }
          });
        }
      }
    }
  });
}

describe('S1: routes', () => {
  it('S1: every route the API contract names has a row in the access table', async () => {
    const contract = await readFile(new URL('../../docs/spec/api-contract.md', import.meta.url), 'utf8');
    const named = [...contract.matchAll(/`(GET|POST) (\/[^`?\s]*)/g)].map(
      ([, method, path]) => `${method} ${path}`,
    );
    expect(named).toContain('GET /api/v1/export');
    for (const route of named) expect(Object.keys(ROUTES), route).toContain(route);
  });
});

describe('S1: sockets', () => {
  it('S1: one WebSocket per accepted caller kind served all of its operations (W9: re-checked per operation)', () => {
    const accepted = CALLER_KINDS.filter((caller) => SOCKET_REFUSAL[caller] === undefined);
    expect([...sockets.keys()].sort()).toEqual([...accepted].sort());
    for (const [caller, { sockets: opened }] of sockets) expect(opened(), caller).toBe(1);
  });
});

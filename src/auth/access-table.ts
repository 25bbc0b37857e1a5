// S1, §1 Callers: THE table of who may do what. GraphQL's scopes (schema/builder.ts), the REST write,
// the export, MCP tool visibility and the isolation matrix's expectations are all read from it.
import type { Caller } from './caller.js';

/** Who a token is, as far as rights go: the admin token, an operator token, or a run token of one kind. */
export const ROLES = ['admin', 'operator', 'ANALYSIS', 'TRADING', 'REVIEW'] as const;
export type Role = (typeof ROLES)[number];

const EVERYONE = ROLES;
/** The desk: operators, Review runs and the admin (B7–B10, T3). */
const DESK = ['admin', 'operator', 'REVIEW'] as const;

/**
 * What a role may do. Rows are capabilities; a field, route or tool names the one it needs. Which
 * records a capability reaches is narrowed by the caller's agent in access.ts (S1: never another
 * agent's; §1: a Trading run's records by id only its own producer's trading decisions).
 */
export const ACCESS_TABLE = {
  /** viewer, agents, agent(id): who the token is and its own agent. */
  identify: EVERYONE,
  /** instruments, list_instruments: reference data (D1, M11). */
  instruments: EVERYONE,
  /** memory(id), Memory.linkedFrom, get_memory. */
  record: EVERYONE,
  /** tradingContext, get_trading_context (C1–C10). */
  context: EVERYONE,
  /** memories, memoryTypes, GET /api/v1/export, list_memories, list_memory_types: Trading runs read only their context (§1). */
  browse: ['admin', 'operator', 'ANALYSIS', 'REVIEW'],
  /** Agent.runs, Producer.runs, Agent.health, producerHealth, freshnessBoard, freshnessTimeline, get_producer_health. */
  desk: DESK,
  /** decisionAudit, get_decision_audit (T3). */
  audit: DESK,
  /** memoryAdded, runChanged (L1: run tokens may not subscribe). */
  subscribe: ['admin', 'operator'],
  /** createMemory, POST /api/v1/memories, write_memory (W1: the writers are runs). */
  write: ['ANALYSIS', 'TRADING', 'REVIEW'],
  /** The scheduler's operations (agents, instruments, producers, runs, operator tokens, imports). */
  administer: ['admin'],
} as const satisfies Record<string, readonly Role[]>;

export type Capability = keyof typeof ACCESS_TABLE;
export const CAPABILITIES = Object.keys(ACCESS_TABLE) as Capability[];

/** MCP is for agents and operators: the admin token (the scheduler) sees no tool, whatever it may do. */
export const MCP_ROLES: readonly Role[] = ROLES.filter((role) => role !== 'admin');

export function may(role: Role | null, capability: Capability): boolean {
  return role !== null && (ACCESS_TABLE[capability] as readonly Role[]).includes(role);
}

export function roleOf(caller: Caller | null | undefined): Role | null {
  if (!caller) return null;
  if (caller.kind === 'run') return caller.run.kind;
  return caller.kind;
}

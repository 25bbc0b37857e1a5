// Who may do what (§1 callers, S1): the scopes a caller holds, read from the access table, and the one
// place that answers "which agent, and which of its records, does this caller reach".
import type { Caller } from './caller.js';
import { may, roleOf, type Capability } from './access-table.js';
import { ForbiddenError, InputError } from '../domain/errors.js';
import { TRADING_DECISION } from '../domain/write-validation.js';
import type { RecordReadFilter } from '../records/record-shape.js';

/**
 * The scopes of a caller (`@pothos/plugin-scope-auth`): one per capability of the access table, true
 * when the caller's role has it. A field declares the capability it needs (`t.withAuth({ browse: true })`).
 */
export type CallerScopes = Record<Capability, boolean>;

export function scopesOf(caller: Caller | null): CallerScopes {
  const role = roleOf(caller);
  const has = (capability: Capability) => may(role, capability);
  return {
    identify: has('identify'),
    instruments: has('instruments'),
    record: has('record'),
    context: has('context'),
    browse: has('browse'),
    desk: has('desk'),
    audit: has('audit'),
    subscribe: has('subscribe'),
    write: has('write'),
    administer: has('administer'),
  };
}

/** What a caller whose role lacks the capability is told (FORBIDDEN), on every transport. */
export const REFUSED: Record<Capability, string> = {
  identify: 'This token may not do that',
  instruments: 'This token may not do that',
  record: 'This token may not do that',
  context: 'This token may not do that',
  browse: 'Trading runs may read only the trading context and their own trading decisions',
  desk: 'Only operators, Review runs and the admin may read runs and health',
  audit: 'Only operators, Review runs and the admin may audit decisions',
  subscribe: 'Run tokens cannot subscribe',
  write: 'createMemory needs a run token',
  administer: 'This operation needs the admin token',
};

/** The capability's refusal unless the caller's role has it (for transports without scopes: the export). */
export function requireCapability(caller: Caller, capability: Capability): void {
  if (!may(roleOf(caller), capability)) throw new ForbiddenError(REFUSED[capability]);
}

/**
 * The agent a read acts for (the field's scope has already refused a caller without the capability).
 * Admin passes `agentId`; operator and run tokens imply theirs and may not name another.
 */
export function agentForRead(caller: Caller, requestedAgentId: string | null | undefined): string {
  if (caller.kind === 'admin') {
    if (!requestedAgentId) throw new InputError('agentId is required with the admin token', 'agentId');
    return requestedAgentId;
  }
  if (requestedAgentId && requestedAgentId !== caller.agentId)
    throw new ForbiddenError('This token belongs to another agent');
  return caller.agentId;
}

/**
 * The agents a caller reaches (S1): the admin token every agent (no condition), any other token its
 * own — the agents it sees, the decisions it audits (T3), the records it reads by id.
 */
export function agentFilter(caller: Caller): { agentId?: string } {
  return caller.kind === 'admin' ? {} : { agentId: caller.agentId };
}

/** Which records a caller may read by id: same agent; Trading runs only their own producer's decisions (§1). */
export function memoryReadFilter(caller: Caller): RecordReadFilter {
  const { agentId } = agentFilter(caller);
  if (agentId === undefined) return {};
  if (caller.kind === 'run' && caller.run.kind === 'TRADING') {
    return { agentId, producerId: caller.run.producerId, type: TRADING_DECISION };
  }
  return { agentId };
}

/** memoryReadFilter where a caller must exist: every operation that answers a Memory has one (S3). */
export function linkedFromReadFilter(caller: Caller | null): RecordReadFilter {
  if (!caller) throw new Error('Memory.linkedFrom reached without a caller');
  return memoryReadFilter(caller);
}

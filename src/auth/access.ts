// Who may do what (§1 callers, S1): the scopes a caller holds — the schema declares which scopes a
// field needs — and the one place that answers "which agent does this read act for".
import type { Caller } from './caller.js';
import { ForbiddenError, InputError } from '../domain/errors.js';
import { TRADING_DECISION } from '../domain/write-validation.js';
import type { RecordReadFilter } from '../store/memory-record.js';

/**
 * The scopes of a caller (`@pothos/plugin-scope-auth`). Each is a plain fact about the token; which
 * combination a field needs, and what a refusal says, is declared on the field (schema/).
 */
export interface CallerScopes {
  /** Any token that authenticates (W9: a run's only while it is RUNNING, S6: an operator's until revoked). */
  anyCaller: boolean;
  admin: boolean;
  operator: boolean;
  /** Any run token; the writers (W1). */
  run: boolean;
  /** T3: a Review run may audit its agent's decisions. */
  reviewRun: boolean;
}

export function scopesOf(caller: Caller | null): CallerScopes {
  return {
    anyCaller: caller !== null,
    admin: caller?.kind === 'admin',
    operator: caller?.kind === 'operator',
    run: caller?.kind === 'run',
    reviewRun: caller?.kind === 'run' && caller.run.kind === 'REVIEW',
  };
}

export type ReadPurpose = 'browse' | 'context' | 'record' | 'subscribe';

/**
 * The agent a read acts for (the field's `anyCaller` scope has already refused a request without a
 * caller). Admin passes `agentId`; operator and run tokens imply theirs and may not name another.
 * Trading runs have restricted context-only read access.
 */
export function agentForRead(
  caller: Caller,
  requestedAgentId: string | null | undefined,
  purpose: ReadPurpose,
): string {
  if (caller.kind === 'admin') {
    if (!requestedAgentId) throw new InputError('agentId is required with the admin token', 'agentId');
    return requestedAgentId;
  }
  if (requestedAgentId && requestedAgentId !== caller.agentId)
    throw new ForbiddenError('This token belongs to another agent');
  if (caller.kind === 'run') {
    if (purpose === 'subscribe') throw new ForbiddenError('Run tokens cannot subscribe');
    if (caller.run.kind === 'TRADING' && purpose === 'browse') {
      throw new ForbiddenError(
        'Trading runs may read only the trading context and their own trading decisions',
      );
    }
  }
  return caller.agentId;
}

/** Which records a caller may read by id: same agent; Trading runs only their own producer's decisions (§1). */
export function memoryReadFilter(caller: Caller): RecordReadFilter {
  if (caller.kind === 'admin') return {};
  if (caller.kind === 'run' && caller.run.kind === 'TRADING') {
    return { agentId: caller.agentId, producerId: caller.run.producerId, type: TRADING_DECISION };
  }
  return { agentId: caller.agentId };
}

/** memoryReadFilter where a caller must exist: every operation that answers a Memory has one (S3). */
export function linkedFromReadFilter(caller: Caller | null): RecordReadFilter {
  if (!caller) throw new Error('Memory.linkedFrom reached without a caller');
  return memoryReadFilter(caller);
}

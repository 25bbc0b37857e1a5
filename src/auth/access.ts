// Who may read what (§1 callers): one place answers "which agent does this request act for".
import type { Caller } from './caller.js';
import { ForbiddenError, InputError, UnauthenticatedError } from '../domain/errors.js';

export type ReadPurpose = 'browse' | 'context' | 'record' | 'subscribe';

/**
 * The agent a read acts for. Admin passes `agentId`; operator and run tokens imply theirs and may
 * not name another. Trading runs have restricted context-only read access.
 */
export function agentForRead(
  caller: Caller | null,
  failure: string | null,
  requestedAgentId: string | null | undefined,
  purpose: ReadPurpose,
): string {
  if (!caller) throw new UnauthenticatedError(failure);
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

export function requireAdmin(caller: Caller | null, failure: string | null): void {
  if (!caller) throw new UnauthenticatedError(failure);
  if (caller.kind !== 'admin') throw new ForbiddenError('This operation needs the admin token');
}

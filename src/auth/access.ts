// Who may read what (§1 callers): one place answers "which agent does this request act for".
import type { Caller } from './caller.js';
import { badInput, forbidden, unauthenticated } from './errors.js';

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
  if (!caller) throw unauthenticated(failure);
  if (caller.kind === 'admin') {
    if (!requestedAgentId) throw badInput('agentId is required with the admin token', 'agentId');
    return requestedAgentId;
  }
  if (requestedAgentId && requestedAgentId !== caller.agentId)
    throw forbidden('This token belongs to another agent');
  if (caller.kind === 'run') {
    if (purpose === 'subscribe') throw forbidden('Run tokens cannot subscribe');
    if (caller.run.kind === 'TRADING' && purpose === 'browse') {
      throw forbidden('Trading runs may read only the trading context and their own trading decisions');
    }
  }
  return caller.agentId;
}

export function requireAdmin(caller: Caller | null, failure: string | null): void {
  if (!caller) throw unauthenticated(failure);
  if (caller.kind !== 'admin') throw forbidden('This operation needs the admin token');
}

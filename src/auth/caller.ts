// token → caller, once per HTTP request and once per WebSocket operation (W9: never cached for the
// life of a connection).
import type { Database } from '../store/db.js';
import type { RunIdentity } from '../domain/types.js';
import { findOperatorByTokenHash, findRunByTokenHash } from '../store/tokens.js';
import { hashToken, tokensEqual } from '../domain/tokens.js';

export type Caller =
  | { kind: 'admin'; tokenKey: string }
  | { kind: 'operator'; agentId: string; tokenKey: string; operatorTokenId: string }
  | { kind: 'run'; agentId: string; run: RunIdentity & { producerName: string }; tokenKey: string };

/**
 * Why no caller: `missing` (no token sent), `unknown` (not a token of this service) or `inactive`
 * (a real token that no longer authenticates: its run finished or it was revoked — L4 tells them apart).
 */
export type AuthFailure =
  { reason: 'missing' } | { reason: 'unknown' } | { reason: 'inactive'; detail: string };

export type CallerResolution = { caller: Caller; failure: null } | { caller: null; failure: AuthFailure };

/** No token was sent. */
export const MISSING: CallerResolution = { caller: null, failure: { reason: 'missing' } };
const UNKNOWN: CallerResolution = { caller: null, failure: { reason: 'unknown' } };

export function describeAuthFailure(failure: AuthFailure | null): string | null {
  if (!failure || failure.reason === 'missing') return null;
  return failure.reason === 'unknown' ? 'unknown token' : failure.detail;
}

export async function resolveCaller(
  db: Database,
  token: string | null,
  adminToken: string,
): Promise<CallerResolution> {
  if (!token) return MISSING;
  const tokenKey = hashToken(token);
  if (tokensEqual(token, adminToken)) return { caller: { kind: 'admin', tokenKey }, failure: null };
  if (token.startsWith('run_')) {
    const run = await findRunByTokenHash(db.sql, tokenKey);
    if (!run) return UNKNOWN;
    // A run token works only while its run is RUNNING (W9 re-checks it atomically at the insert).
    if (run.status !== 'RUNNING') {
      return { caller: null, failure: { reason: 'inactive', detail: `run ${run.id} is ${run.status}` } };
    }
    const { status: _status, ...identity } = run;
    return { caller: { kind: 'run', agentId: run.agentId, run: identity, tokenKey }, failure: null };
  }
  if (token.startsWith('op_')) {
    const operator = await findOperatorByTokenHash(db.sql, tokenKey);
    if (!operator) return UNKNOWN;
    if (operator.revokedAt) {
      return { caller: null, failure: { reason: 'inactive', detail: 'operator token revoked' } };
    }
    return {
      caller: { kind: 'operator', agentId: operator.agentId, tokenKey, operatorTokenId: operator.id },
      failure: null,
    };
  }
  return UNKNOWN;
}

// token → caller, once per HTTP request and once per WebSocket operation (W9: never cached for the
// life of a connection). A token's identity may be remembered; whether it still authenticates never
// is (TokenIdentities, `unverified`).
import type { Database } from '../store/db.js';
import type { RunIdentity } from '../domain/types.js';
import { UnauthenticatedError } from '../domain/errors.js';
import {
  findOperatorByTokenHash,
  findRunByTokenHash,
  operatorTokenRevokedAt,
  runStatus,
} from '../store/tokens.js';
import { hashToken, tokenAgentId, tokensEqual } from '../domain/tokens.js';

export type Caller =
  | { kind: 'admin'; tokenKey: string }
  | { kind: 'operator'; agentId: string; tokenKey: string; operatorTokenId: string; unverified?: true }
  | {
      kind: 'run';
      agentId: string;
      run: RunIdentity & { producerName: string };
      tokenKey: string;
      unverified?: true;
    };

/**
 * `unverified`: the identity came from TokenIdentities without reading whether the token still
 * authenticates (a run RUNNING, an operator token not revoked). Only a statement that checks it
 * itself may act on such a caller — a write's insert (W9), a read with the check folded in
 * (RequestCaller.readLive) — and anything else checks first (the `live` scope, requireLive).
 */
type RememberedCaller = Extract<Caller, { kind: 'run' } | { kind: 'operator' }>;

/** A caller resolved `unverified` (null and undefined: no caller). */
export function isUnverified(
  caller: Caller | null | undefined,
): caller is RememberedCaller & { unverified: true } {
  return caller != null && caller.kind !== 'admin' && caller.unverified === true;
}

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

/** The refusal of a request without a caller, saying why; a token that stopped working is `ended` (S6). */
export function authFailureError(failure: AuthFailure | null): UnauthenticatedError {
  return new UnauthenticatedError(describeAuthFailure(failure), failure?.reason === 'inactive');
}

export function describeAuthFailure(failure: AuthFailure | null): string | null {
  if (!failure || failure.reason === 'missing') return null;
  return failure.reason === 'unknown' ? 'unknown token' : failure.detail;
}

/** Most token identities this process remembers (runs are short; operators few). */
export const MAX_REMEMBERED_TOKENS = 10_000;

/**
 * Run and operator token identities already read (S14: a write or a read in one round trip).
 * An identity — agent, producer, kind, schedule, evidence boundary; an operator token's id — never
 * changes; whether the token still authenticates does, so that is never remembered: the caller
 * comes back `unverified`. Oldest first out when full.
 */
export class TokenIdentities {
  private readonly callers = new Map<string, RememberedCaller>();

  constructor(private readonly max = MAX_REMEMBERED_TOKENS) {}

  get(tokenKey: string): RememberedCaller | undefined {
    return this.callers.get(tokenKey);
  }

  remember(caller: RememberedCaller): void {
    if (this.callers.has(caller.tokenKey)) return;
    if (this.callers.size >= this.max) this.callers.delete(this.callers.keys().next().value!);
    this.callers.set(caller.tokenKey, caller);
  }
}

/**
 * resolveCaller, except that a run or operator token whose identity this process has read comes
 * back without a statement, `unverified` (W9: a write checks the run atomically; a read folds the
 * check into its statement; S6: anything else calls requireLive first).
 */
export async function resolveCallerDeferringLiveness(
  db: Database,
  token: string | null,
  adminToken: string,
  identities: TokenIdentities,
): Promise<CallerResolution> {
  if ((token?.startsWith('run_') || token?.startsWith('op_')) && !tokensEqual(token, adminToken)) {
    const known = identities.get(hashToken(token));
    if (known) return { caller: { ...known, unverified: true }, failure: null };
  }
  const resolution = await resolveCaller(db, token, adminToken);
  if (resolution.caller && resolution.caller.kind !== 'admin') identities.remember(resolution.caller);
  return resolution;
}

/**
 * S6, W9 for a caller resolved `unverified`: the resolution as resolveCaller gives it now — the same
 * caller while its run is RUNNING or its operator token not revoked, else the refusal
 * (`run … is SUCCEEDED`, `operator token revoked`).
 */
export async function requireLive(db: Database, caller: Caller): Promise<CallerResolution> {
  if (!isUnverified(caller)) return { caller, failure: null };
  if (caller.kind === 'run') {
    const status = await runStatus(db.sql, caller.agentId, caller.run.id);
    if (!status) return UNKNOWN;
    if (status !== 'RUNNING') {
      return { caller: null, failure: { reason: 'inactive', detail: `run ${caller.run.id} is ${status}` } };
    }
  } else {
    const revokedAt = await operatorTokenRevokedAt(db.sql, caller.agentId, caller.operatorTokenId);
    if (revokedAt === undefined) return UNKNOWN;
    if (revokedAt !== null) return { caller: null, failure: { reason: 'inactive', detail: REVOKED } };
  }
  const { unverified: _unverified, ...checked } = caller;
  return { caller: checked, failure: null };
}

const REVOKED = 'operator token revoked';

export async function resolveCaller(
  db: Database,
  token: string | null,
  adminToken: string,
): Promise<CallerResolution> {
  if (!token) return MISSING;
  const tokenKey = hashToken(token);
  if (tokensEqual(token, adminToken)) return { caller: { kind: 'admin', tokenKey }, failure: null };
  if (token.startsWith('run_')) {
    const run = await findRunByTokenHash(db.sql, tokenKey, tokenAgentId(token));
    if (!run) return UNKNOWN;
    // A run token works only while its run is RUNNING (W9 re-checks it atomically at the insert).
    if (run.status !== 'RUNNING') {
      return { caller: null, failure: { reason: 'inactive', detail: `run ${run.id} is ${run.status}` } };
    }
    const { status: _status, ...identity } = run;
    return { caller: { kind: 'run', agentId: run.agentId, run: identity, tokenKey }, failure: null };
  }
  if (token.startsWith('op_')) {
    const operator = await findOperatorByTokenHash(db.sql, tokenKey, tokenAgentId(token));
    if (!operator) return UNKNOWN;
    if (operator.revokedAt) {
      return { caller: null, failure: { reason: 'inactive', detail: REVOKED } };
    }
    return {
      caller: { kind: 'operator', agentId: operator.agentId, tokenKey, operatorTokenId: operator.id },
      failure: null,
    };
  }
  return UNKNOWN;
}

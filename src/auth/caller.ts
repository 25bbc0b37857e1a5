// token → caller, once per HTTP request and once per WebSocket operation (W9: never cached for the
// life of a connection).
import type { Database } from '../store/db.js';
import type { RunIdentity } from '../domain/types.js';
import { findOperatorByTokenHash, findRunByTokenHash, runStatus } from '../store/tokens.js';
import { hashToken, tokensEqual } from '../domain/tokens.js';

export type Caller =
  | { kind: 'admin'; tokenKey: string }
  | { kind: 'operator'; agentId: string; tokenKey: string; operatorTokenId: string }
  | {
      kind: 'run';
      agentId: string;
      run: RunIdentity & { producerName: string };
      tokenKey: string;
      /**
       * The identity came from RunIdentities without reading the run's status: only a write may act
       * on it, whose insert checks RUNNING atomically (W9); anything else checks first (requireRunning).
       */
      statusUnchecked?: true;
    };

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

type RunCaller = Extract<Caller, { kind: 'run' }>;

/** Most run tokens this process remembers (a run writes a handful of records; runs are short). */
export const MAX_REMEMBERED_RUNS = 10_000;

/**
 * Run-token identities already read (issue 14: a write in one round trip). A run's identity —
 * agent, producer, kind, schedule, evidence boundary — never changes; its status does, so it is
 * never remembered: the caller comes back `statusUnchecked`. Oldest first out when full.
 */
export class RunIdentities {
  private readonly runs = new Map<string, RunCaller>();

  constructor(private readonly max = MAX_REMEMBERED_RUNS) {}

  get(tokenKey: string): RunCaller | undefined {
    return this.runs.get(tokenKey);
  }

  remember(caller: RunCaller): void {
    if (this.runs.has(caller.tokenKey)) return;
    if (this.runs.size >= this.max) this.runs.delete(this.runs.keys().next().value!);
    this.runs.set(caller.tokenKey, caller);
  }
}

/**
 * resolveCaller, except that a run token whose identity this process has read comes back without a
 * statement, `statusUnchecked` (W9: its write checks the status atomically; S6: anything else calls
 * requireRunning first).
 */
export async function resolveCallerDeferringStatus(
  db: Database,
  token: string | null,
  adminToken: string,
  identities: RunIdentities,
): Promise<CallerResolution> {
  if (token?.startsWith('run_') && !tokensEqual(token, adminToken)) {
    const known = identities.get(hashToken(token));
    if (known) return { caller: { ...known, statusUnchecked: true }, failure: null };
  }
  const resolution = await resolveCaller(db, token, adminToken);
  if (resolution.caller?.kind === 'run') identities.remember(resolution.caller);
  return resolution;
}

/**
 * S6, W9 for a caller resolved `statusUnchecked`: the resolution as resolveCaller gives it now — the
 * same caller when its run is still RUNNING, else the refusal (`run … is FINISHED`).
 */
export async function requireRunning(db: Database, caller: Caller): Promise<CallerResolution> {
  if (caller.kind !== 'run' || !caller.statusUnchecked) return { caller, failure: null };
  const status = await runStatus(db.sql, caller.run.id);
  if (!status) return UNKNOWN;
  if (status !== 'RUNNING') {
    return { caller: null, failure: { reason: 'inactive', detail: `run ${caller.run.id} is ${status}` } };
  }
  const { statusUnchecked: _unchecked, ...checked } = caller;
  return { caller: checked, failure: null };
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

// token → caller, once per request or WebSocket connection.
import type { Database } from '../store/db.js';
import type { RunKind } from '../domain/types.js';
import { hashToken, tokensEqual } from './tokens.js';

export interface RunIdentity {
  id: string;
  agentId: string;
  producerId: string;
  kind: RunKind;
  schedule: string | null;
  evidenceBoundary: Date | null;
  /** Known when resolved from a token; lets a write answer without reading its record back. */
  producerName?: string;
}

export type Caller =
  | { kind: 'admin'; tokenKey: string }
  | { kind: 'operator'; agentId: string; tokenKey: string }
  | { kind: 'run'; agentId: string; run: RunIdentity; tokenKey: string };

export type CallerResolution = { caller: Caller; failure: null } | { caller: null; failure: string | null };

/** `failure` is null when no token was sent, else why the token was refused. */
export async function resolveCaller(
  db: Database,
  token: string | null,
  adminToken: string,
): Promise<CallerResolution> {
  if (!token) return { caller: null, failure: null };
  const tokenKey = hashToken(token);
  if (tokensEqual(token, adminToken)) return { caller: { kind: 'admin', tokenKey }, failure: null };
  if (token.startsWith('run_')) {
    const [run] = await db.sql.query<RunIdentity & { status: string }>(
      `SELECT r.id, r."agentId", r."producerId", r.kind, r.schedule, r."evidenceBoundary", r.status, p.name AS "producerName"
         FROM "Run" r JOIN "Producer" p ON p.id = r."producerId" WHERE r."tokenHash" = $1`,
      [tokenKey],
    );
    if (!run) return { caller: null, failure: 'unknown token' };
    // A run token works only while its run is RUNNING.
    if (run.status !== 'RUNNING') return { caller: null, failure: `run ${run.id} is ${run.status}` };
    const { status: _status, ...identity } = run;
    return { caller: { kind: 'run', agentId: run.agentId, run: identity, tokenKey }, failure: null };
  }
  if (token.startsWith('op_')) {
    const [operator] = await db.sql.query<{ agentId: string }>(
      `SELECT "agentId" FROM "OperatorToken" WHERE "tokenHash" = $1`,
      [tokenKey],
    );
    if (!operator) return { caller: null, failure: 'unknown token' };
    return { caller: { kind: 'operator', agentId: operator.agentId, tokenKey }, failure: null };
  }
  return { caller: null, failure: 'unknown token' };
}

// Token lookups by hash (tokens themselves are never stored): which run or operator a bearer token
// belongs to, and which of a set of tokens still authenticate (S6, W9, L4).
import type { RunKind, RunStatus } from '../domain/types.js';
import { anyAgent } from './any-agent.js';
import type { Sql } from './db.js';

export interface RunTokenRow {
  id: string;
  agentId: string;
  producerId: string;
  producerName: string;
  kind: RunKind;
  schedule: string | null;
  evidenceBoundary: Date | null;
  status: RunStatus;
}

export interface OperatorTokenRow {
  id: string;
  agentId: string;
  revokedAt: Date | null;
}

/**
 * D2: `agentId` is the agent the token names (tokenAgentId): the lookup reads that agent's rows
 * only. A token issued before tokens named their agent (null) is probed for every agent.
 */
export async function findRunByTokenHash(
  sql: Sql,
  tokenHash: string,
  agentId: string | null,
): Promise<RunTokenRow | null> {
  const agent = agentId === null ? anyAgent('r') : 'r."agentId" = $2';
  const [run] = await sql.query<RunTokenRow>(
    `SELECT r.id, r."agentId", r."producerId", p.name AS "producerName", r.kind, r.schedule,
            r."evidenceBoundary", r.status
       FROM "Run" r JOIN "Producer" p ON p."agentId" = r."agentId" AND p.id = r."producerId"
      WHERE ${agent} AND r."tokenHash" = $1`,
    agentId === null ? [tokenHash] : [tokenHash, agentId],
  );
  return run ?? null;
}

export async function findOperatorByTokenHash(
  sql: Sql,
  tokenHash: string,
  agentId: string | null,
): Promise<OperatorTokenRow | null> {
  const agent = agentId === null ? anyAgent('o') : 'o."agentId" = $2';
  const [operator] = await sql.query<OperatorTokenRow>(
    `SELECT id, "agentId", "revokedAt" FROM "OperatorToken" o WHERE ${agent} AND "tokenHash" = $1`,
    agentId === null ? [tokenHash] : [tokenHash, agentId],
  );
  return operator ?? null;
}

/** A run's status now (null: no such run) — for a caller whose identity was remembered (S6, W9). */
export async function runStatus(sql: Sql, agentId: string, runId: string): Promise<RunStatus | null> {
  const [run] = await sql.query<{ status: RunStatus }>(
    'SELECT status::text AS status FROM "Run" WHERE "agentId" = $1 AND id = $2',
    [agentId, runId],
  );
  return run?.status ?? null;
}

/** Of the given run and operator token hashes, those that still authenticate (RUNNING, not revoked). */
export async function liveTokenHashes(sql: Sql, tokenHashes: string[]): Promise<Set<string>> {
  const rows = await sql.query<{ tokenHash: string }>(
    `SELECT "tokenHash" FROM "OperatorToken" o
      WHERE ${anyAgent('o')} AND "tokenHash" = ANY($1::text[]) AND "revokedAt" IS NULL
     UNION ALL
     SELECT "tokenHash" FROM "Run" r WHERE ${anyAgent('r')} AND "tokenHash" = ANY($1::text[]) AND status = 'RUNNING'`,
    [tokenHashes],
  );
  return new Set(rows.map((row) => row.tokenHash));
}

/** An operator token's revocation instant (null: not revoked; undefined: no such token) — S6. */
export async function operatorTokenRevokedAt(
  sql: Sql,
  agentId: string,
  operatorTokenId: string,
): Promise<Date | null | undefined> {
  // Asked only after a read found nothing (S14); names the token's agent, so one shard answers (D2).
  const [token] = await sql.query<{ revokedAt: Date | null }>(
    'SELECT "revokedAt" FROM "OperatorToken" WHERE "agentId" = $1 AND id = $2',
    [agentId, operatorTokenId],
  );
  return token === undefined ? undefined : token.revokedAt;
}

/** What a read checks in its own statement for a remembered token (S14, S6, W9). */
export type TokenLiveness =
  | { kind: 'run'; agentId: string; runId: string }
  | { kind: 'operator'; agentId: string; operatorTokenId: string };

/**
 * The liveness check as one SQL condition, uncorrelated (PostgreSQL evaluates it once, before
 * reading anything: a one-time filter), and the letter it adds to a named statement's variant.
 */
export function livenessCondition(
  liveness: TokenLiveness,
  param: (value: unknown) => string,
): { condition: string; variant: string } {
  return liveness.kind === 'run'
    ? {
        condition: `EXISTS (SELECT 1 FROM "Run" lr WHERE lr."agentId" = ${param(liveness.agentId)}::uuid AND lr.id = ${param(liveness.runId)}::uuid AND lr.status = 'RUNNING')`,
        variant: 'R',
      }
    : {
        condition: `EXISTS (SELECT 1 FROM "OperatorToken" lo WHERE lo."agentId" = ${param(liveness.agentId)}::uuid AND lo.id = ${param(liveness.operatorTokenId)}::uuid AND lo."revokedAt" IS NULL)`,
        variant: 'O',
      };
}

/**
 * A statement's conditions with the liveness check added (null: none to add); its letter joins the
 * named statement's variant, since the text differs (a null variant stays null: unnamed).
 */
export function withLiveness(
  sql: { where: string[]; variant: string | null },
  liveness: TokenLiveness | null,
  param: (value: unknown) => string,
): { where: string[]; variant: string | null } {
  if (!liveness) return sql;
  const { condition, variant } = livenessCondition(liveness, param);
  return {
    where: [...sql.where, condition],
    variant: sql.variant === null ? null : `${sql.variant}${variant}`,
  };
}

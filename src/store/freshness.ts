// The freshness board's and timeline's reads (B9) beside the trading context's own statement: the
// instruments selected at an instant, the latest decision per instrument with its evidence counts,
// and a range's lane records, corrections, toggles and decisions — each one bounded statement.
import type { MemoryScope } from '../domain/types.js';
import { CONSIDERED, CORRECTS, TRADING_DECISION } from '../domain/write-validation.js';
import type { Database } from './db.js';

const ms = (column: string) => `(extract(epoch FROM ${column}) * 1000)::float8`;

/** The instruments the agent selected at `at` (selection history, W3), by name. */
export async function instrumentsSelectedAt(db: Database, agentId: string, at: Date): Promise<string[]> {
  const rows = await db.prisma.agentInstrument.findMany({
    where: { agentId, selectedAt: { lte: at }, OR: [{ deselectedAt: null }, { deselectedAt: { gt: at } }] },
    select: { instrumentId: true },
    orderBy: { instrumentId: 'asc' },
  });
  return [...new Set(rows.map((row) => row.instrumentId))];
}

export interface LatestDecisionRow {
  instrument: string;
  id: string | null;
  fresh: number | null;
  stale: number | null;
}

/**
 * Per instrument its latest trading_decision at or before `at` (one index probe per Trading
 * producer), and how many of its considered records were fresh / stale at its createdAt.
 */
export async function latestDecisions(
  db: Database,
  agentId: string,
  instruments: string[],
  at: Date,
): Promise<LatestDecisionRow[]> {
  if (instruments.length === 0) return [];
  return db.sql.query<LatestDecisionRow>(
    `SELECT i.instrument, d.id, ev.fresh, ev.stale
       FROM unnest($2::text[]) AS i(instrument)
       LEFT JOIN LATERAL (
         SELECT t."memoryId" AS id, t."createdAt" FROM "Producer" p CROSS JOIN LATERAL (
           SELECT t."memoryId", t."createdAt" FROM "MemoryTarget" t
            WHERE t."agentId" = $1 AND t."instrumentId" = i.instrument AND t."runKind" = 'TRADING'
              AND t."isCorrection" = false AND t."producerId" = p.id AND t.type = $4 AND t."createdAt" <= $3
            ORDER BY t."createdAt" DESC, t."memoryId" DESC LIMIT 1) t
          WHERE p."agentId" = $1 AND p.kind = 'TRADING'
          ORDER BY t."createdAt" DESC, t."memoryId" DESC LIMIT 1) d ON true
       LEFT JOIN LATERAL (
         SELECT count(*) FILTER (WHERE e."expiresAt" IS NULL OR e."expiresAt" > d."createdAt")::int AS fresh,
                count(*) FILTER (WHERE e."expiresAt" <= d."createdAt")::int AS stale
           FROM (SELECT DISTINCT l."targetMemoryId" FROM "MemoryLink" l
                  WHERE l."agentId" = $1 AND l."memoryId" = d.id AND l."linkType" = $5) c
           JOIN "Memory" e ON e."agentId" = $1 AND e.id = c."targetMemoryId") ev ON d.id IS NOT NULL
      ORDER BY i.instrument`,
    [agentId, instruments, at, TRADING_DECISION, CONSIDERED],
  );
}

export interface RangeRecord {
  id: string;
  producerId: string;
  type: string;
  scope: MemoryScope;
  createdAt: number;
  expiresAt: number | null;
}

/** C1's candidates of one instrument created strictly inside (from, to), oldest first, at most `limit`. */
export async function laneRecordsInRange(
  db: Database,
  query: { agentId: string; instrument: string; from: Date; to: Date },
  limit: number,
): Promise<RangeRecord[]> {
  return db.sql.query<RangeRecord>(
    `SELECT m.id, m."producerId", m.type, m.scope, ${ms('m."createdAt"')} AS "createdAt",
            ${ms('m."expiresAt"')} AS "expiresAt"
       FROM "Memory" m
      WHERE m."agentId" = $1 AND m.id IN (
        SELECT t."memoryId" FROM "MemoryTarget" t
         WHERE t."agentId" = $1 AND t."instrumentId" = $2 AND t."runKind" = 'ANALYSIS' AND t."isCorrection" = false
           AND t."createdAt" > $3 AND t."createdAt" < $4
        UNION ALL
        SELECT a.id FROM "Memory" a
         WHERE a."agentId" = $1 AND a."runKind" = 'ANALYSIS' AND a.scope = 'AGENT' AND a."isCorrection" = false
           AND a."createdAt" > $3 AND a."createdAt" < $4)
      ORDER BY m."createdAt", m.id LIMIT $5`,
    [query.agentId, query.instrument, query.from, query.to, limit],
  );
}

/** Which of `ids` were corrected (C6: an Analysis record with a `corrects` link to it) before `to`, and first when. */
export async function firstCorrections(
  db: Database,
  agentId: string,
  ids: string[],
  to: Date,
): Promise<Map<string, Date>> {
  if (ids.length === 0) return new Map();
  const rows = await db.sql.query<{ id: string; at: number }>(
    `SELECT l."targetMemoryId" AS id, ${ms('min(c."createdAt")')} AS at
       FROM "MemoryLink" l JOIN "Memory" c ON c."agentId" = l."agentId" AND c.id = l."memoryId"
      WHERE l."agentId" = $1 AND l."targetMemoryId" = ANY ($2::uuid[]) AND l."linkType" = $4
        AND c."agentId" = $1 AND c."runKind" = 'ANALYSIS' AND c."createdAt" < $3
      GROUP BY l."targetMemoryId"`,
    [agentId, ids, to, CORRECTS],
  );
  return new Map(rows.map((row) => [row.id, new Date(row.at)]));
}

/** Every toggle of the agent's producers up to `to`, oldest first (ties: the producer's current state last, as C3 reads it). */
export async function producerToggles(
  db: Database,
  agentId: string,
  to: Date,
): Promise<{ producerId: string; enabled: boolean; at: number }[]> {
  return db.sql.query(
    `SELECT e."producerId", e.enabled, ${ms('e."changedAt"')} AS at
       FROM "ProducerEnablement" e JOIN "Producer" p ON p."agentId" = e."agentId" AND p.id = e."producerId"
      WHERE e."agentId" = $1 AND p."agentId" = $1 AND e."changedAt" < $2
      ORDER BY e."changedAt", (e.enabled = p.enabled)`,
    [agentId, to],
  );
}

/** The instrument's trading decisions created in [from, to), oldest first, at most `limit`. */
export async function decisionIdsInRange(
  db: Database,
  query: { agentId: string; instrument: string; from: Date; to: Date },
  limit: number,
): Promise<string[]> {
  const rows = await db.sql.query<{ id: string }>(
    `SELECT t."memoryId" AS id FROM "MemoryTarget" t
      WHERE t."agentId" = $1 AND t."instrumentId" = $2 AND t."runKind" = 'TRADING' AND t.type = $5
        AND t."createdAt" >= $3 AND t."createdAt" < $4
      ORDER BY t."createdAt", t."memoryId" LIMIT $6`,
    [query.agentId, query.instrument, query.from, query.to, TRADING_DECISION, limit],
  );
  return rows.map((row) => row.id);
}

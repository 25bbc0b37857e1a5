// The fleet table's per-agent figures (B8) for many agents in one statement: instruments
// selected now, records of the last 24 h (the agent's createdAt index) and its latest decision.
import { TRADING_DECISION } from '../domain/write-validation.js';
import type { Database } from './db.js';

export interface FleetCounts {
  agentId: string;
  instrumentsSelected: number;
  recordsLast24h: number;
  lastDecisionAt: number | null;
}

/** `window`: the span whose records are counted; the last decision is the newest up to its end. */
export async function loadFleetCounts(
  db: Database,
  agentIds: readonly string[],
  window: { from: Date; to: Date },
): Promise<FleetCounts[]> {
  if (agentIds.length === 0) return [];
  return db.sql.query<FleetCounts>(
    `SELECT a.id AS "agentId",
       (SELECT count(DISTINCT s."instrumentId")::int FROM "AgentInstrument" s
         WHERE s."agentId" = a.id AND s."deselectedAt" IS NULL) AS "instrumentsSelected",
       (SELECT count(*)::int FROM "Memory" m
         WHERE m."agentId" = a.id AND m."createdAt" >= $2 AND m."createdAt" <= $3) AS "recordsLast24h",
       (SELECT (extract(epoch FROM m."createdAt") * 1000)::float8 FROM "Memory" m
         WHERE m."agentId" = a.id AND m.type = $4 AND m."createdAt" <= $3
         ORDER BY m."createdAt" DESC, m.id DESC LIMIT 1) AS "lastDecisionAt"
       FROM unnest($1::uuid[]) AS a(id)`,
    [agentIds, window.from, window.to, TRADING_DECISION],
  );
}

// Producer health's reads (B8), computed from runs and records — nothing is kept on the write path.
// Two bounded statements: the producers with their toggles, last run and run counts; then per
// (producer, boundary) what the cycles' records say, and lateness over the window.
import type { RunKind } from '../domain/types.js';
import type { Run } from './generated/prisma/client.js';
import type { Database } from './db.js';

/** A run's records: written while it ran (W9), so the agent's (agentId, createdAt) index bounds them. */
const RUN_RECORDS = `m."agentId" = r."agentId" AND m."agentId" = ANY ($1::uuid[]) AND m."createdAt" >= r."startedAt"
  AND m."createdAt" <= coalesce(r."finishedAt", 'infinity') AND m."sourceRunId" = r.id`;
/** Toggles read per producer (a producer toggled more often shows its latest ones). */
const MAX_TOGGLES = 1000;
/** lastRecordAt looks at the producer's latest runs only. */
const LAST_RECORD_RUNS = 50;

const ms = (column: string) => `(extract(epoch FROM ${column}) * 1000)::float8`;

export interface ProducerHealthRow {
  id: string;
  agentId: string;
  kind: RunKind;
  name: string;
  schedule: string | null;
  enabled: boolean;
  createdAt: number;
  /** Oldest first. */
  toggles: { enabled: boolean; at: number }[];
  lastRun: (Omit<Run, 'startedAt' | 'finishedAt' | 'evidenceBoundary'> & RunInstants) | null;
  lastRunRecords: number | null;
  lastRecordAt: number | null;
  failedRuns: number;
  cancelledRuns: number;
  emptyRuns: number;
}
interface RunInstants {
  startedAt: number;
  finishedAt: number | null;
  evidenceBoundary: number | null;
}

/** The agents' producers by name, with what health needs of each; runs counted by start in [from, to). */
export async function loadHealthProducers(
  db: Database,
  agentIds: readonly string[],
  window: { from: Date; to: Date },
): Promise<ProducerHealthRow[]> {
  return db.sql.query<ProducerHealthRow>(
    `SELECT p.id, p."agentId", p.kind, p.name, p.schedule, p.enabled, ${ms('p."createdAt"')} AS "createdAt",
       coalesce((SELECT json_agg(json_build_object('enabled', e.enabled, 'at', ${ms('e."changedAt"')})
                          ORDER BY e."changedAt", e.id)
                   FROM (SELECT * FROM "ProducerEnablement" e
                          WHERE e."agentId" = p."agentId" AND e."agentId" = ANY ($1::uuid[]) AND e."producerId" = p.id
                          ORDER BY e."changedAt" DESC LIMIT ${MAX_TOGGLES}) e), '[]') AS toggles,
       (SELECT json_build_object('id', r.id, 'agentId', r."agentId", 'producerId', r."producerId", 'kind', r.kind,
                 'schedule', r.schedule, 'status', r.status, 'tokenHash', '',
                 'evidenceBoundary', ${ms('r."evidenceBoundary"')}, 'startedAt', ${ms('r."startedAt"')},
                 'finishedAt', ${ms('r."finishedAt"')})
          FROM "Run" r WHERE r."agentId" = p."agentId" AND r."agentId" = ANY ($1::uuid[]) AND r."producerId" = p.id
         ORDER BY r."startedAt" DESC, r.id DESC LIMIT 1) AS "lastRun",
       (SELECT (SELECT count(*)::int FROM "Memory" m WHERE ${RUN_RECORDS})
          FROM "Run" r WHERE r."agentId" = p."agentId" AND r."agentId" = ANY ($1::uuid[]) AND r."producerId" = p.id
         ORDER BY r."startedAt" DESC, r.id DESC LIMIT 1) AS "lastRunRecords",
       (SELECT ${ms('max(last."createdAt")')} FROM (
          SELECT (SELECT m."createdAt" FROM "Memory" m WHERE ${RUN_RECORDS} ORDER BY m."createdAt" DESC LIMIT 1) AS "createdAt"
            FROM "Run" r WHERE r."agentId" = p."agentId" AND r."agentId" = ANY ($1::uuid[]) AND r."producerId" = p.id
           ORDER BY r."startedAt" DESC LIMIT ${LAST_RECORD_RUNS}) last) AS "lastRecordAt",
       counts.failed AS "failedRuns", counts.cancelled AS "cancelledRuns", counts.empty AS "emptyRuns"
       FROM "Producer" p
       CROSS JOIN LATERAL (
         SELECT count(*) FILTER (WHERE r.status = 'FAILED')::int AS failed,
                count(*) FILTER (WHERE r.status = 'CANCELLED')::int AS cancelled,
                count(*) FILTER (WHERE r.status = 'SUCCEEDED' AND NOT EXISTS (
                  SELECT 1 FROM "Memory" m WHERE ${RUN_RECORDS}))::int AS empty
           FROM "Run" r
          WHERE r."agentId" = p."agentId" AND r."agentId" = ANY ($1::uuid[]) AND r."producerId" = p.id AND r."startedAt" >= $2 AND r."startedAt" < $3) counts
      WHERE p."agentId" = ANY ($1::uuid[])
      ORDER BY p."agentId", p.name`,
    [agentIds, window.from, window.to],
  );
}

export interface CycleRow {
  producerId: string;
  boundary: number;
  freshOnArrival: boolean;
}
export interface LatenessRow {
  producerId: string;
  p50: number | null;
  p95: number | null;
  max: number | null;
  staleOnArrival: number;
}

/**
 * The records of the runs whose evidence boundary lies in the window or at or after `statusFrom`
 * (the status's last two cycles), per (producer, boundary); lateness (B8) over the window's only.
 */
export async function loadHealthCycles(
  db: Database,
  agentIds: readonly string[],
  window: { from: Date; to: Date },
  statusFrom: Date,
): Promise<{ cycles: CycleRow[]; lateness: LatenessRow[] }> {
  const [row] = await db.sql.query<{ cycles: CycleRow[] | null; lateness: LatenessRow[] | null }>(
    `WITH rec AS MATERIALIZED (
       SELECT r."producerId", r."evidenceBoundary" AS boundary, m."createdAt", m."expiresAt",
              (r."evidenceBoundary" >= $2 AND r."evidenceBoundary" < $3) AS "inWindow"
         FROM "Run" r JOIN "Memory" m ON ${RUN_RECORDS}
        WHERE r."agentId" = ANY ($1::uuid[])
          AND ((r."evidenceBoundary" >= $2 AND r."evidenceBoundary" < $3) OR r."evidenceBoundary" >= $4)
     )
     SELECT
       (SELECT json_agg(json_build_object('producerId', c."producerId", 'boundary', ${ms('c.boundary')},
                 'freshOnArrival', c.fresh))
          FROM (SELECT "producerId", boundary,
                       bool_or("expiresAt" IS NULL OR "createdAt" < "expiresAt") AS fresh
                  FROM rec GROUP BY "producerId", boundary) c) AS cycles,
       (SELECT json_agg(json_build_object('producerId', l."producerId", 'p50', l.p50, 'p95', l.p95,
                 'max', l.max, 'staleOnArrival', l.stale))
          FROM (SELECT "producerId",
                       percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM "createdAt" - boundary)) AS p50,
                       percentile_cont(0.95) WITHIN GROUP (ORDER BY extract(epoch FROM "createdAt" - boundary)) AS p95,
                       max(extract(epoch FROM "createdAt" - boundary))::float8 AS max,
                       count(*) FILTER (WHERE "createdAt" >= "expiresAt")::int AS stale
                  FROM rec WHERE "inWindow" GROUP BY "producerId") l) AS lateness`,
    [agentIds, window.from, window.to, statusFrom],
  );
  return { cycles: row?.cycles ?? [], lateness: row?.lateness ?? [] };
}

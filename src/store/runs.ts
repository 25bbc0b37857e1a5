// Runs as the desk sees them (B7): an agent's or a producer's runs newest first, keyset-paged on
// (startedAt, id), and how many records each wrote — one statement for a whole page.
import type { CursorPosition } from '../domain/cursor.js';
import type { RunStatus } from '../domain/types.js';
import type { Database } from './db.js';
import type { Run } from './generated/prisma/client.js';

/** A run with the number of records it wrote (B7), loaded beside the page that shows it. */
export type RunWithCount = Run & { recordCount?: number };

export interface RunPageQuery {
  agentId: string;
  /** Only this producer's runs (Producer.runs). */
  producerId?: string;
  statuses?: readonly RunStatus[] | null;
  first: number;
  after: CursorPosition | null;
}

/** One page newest first (startedAt, then id, both descending), plus whether more follow. */
export async function listRunPage(
  db: Database,
  query: RunPageQuery,
): Promise<{ runs: RunWithCount[]; hasNextPage: boolean }> {
  const { agentId, producerId, statuses, first, after } = query;
  const rows = await db.prisma.run.findMany({
    where: {
      agentId,
      ...(producerId ? { producerId } : {}),
      ...(statuses && statuses.length > 0 ? { status: { in: [...statuses] } } : {}),
      ...(after
        ? {
            OR: [
              { startedAt: { lt: after.createdAt } },
              { startedAt: after.createdAt, id: { lt: after.id } },
            ],
          }
        : {}),
    },
    orderBy: [{ startedAt: 'desc' }, { id: 'desc' }],
    take: first + 1,
  });
  const runs = rows.slice(0, first);
  const counts = await countRunRecords(db, agentId, runs);
  return {
    runs: runs.map((run) => ({ ...run, recordCount: counts.get(run.id) ?? 0 })),
    hasNextPage: rows.length > first,
  };
}

/**
 * B7: records per run in one statement. A run writes only while RUNNING (W9), so its records lie
 * between its start and its finish: the agent's (agentId, createdAt) index bounds each count.
 */
export async function countRunRecords(
  db: Database,
  agentId: string,
  runs: readonly Pick<Run, 'id' | 'startedAt' | 'finishedAt'>[],
): Promise<Map<string, number>> {
  if (runs.length === 0) return new Map();
  const rows = await db.sql.query<{ runId: string; count: number }>(
    `SELECT r.id AS "runId", (
       SELECT count(*)::int FROM "Memory" m
        WHERE m."agentId" = $1 AND m."createdAt" >= r."startedAt"
          AND m."createdAt" <= coalesce(r."finishedAt", 'infinity') AND m."sourceRunId" = r.id) AS count
       FROM "Run" r WHERE r."agentId" = $1 AND r.id = ANY ($2::uuid[])`,
    [agentId, runs.map((run) => run.id)],
  );
  return new Map(rows.map((row) => [row.runId, row.count]));
}

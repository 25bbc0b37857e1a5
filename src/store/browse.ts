// The operator browser's reads (B1–B4) and the replay of a resuming subscriber (L2): filters
// resolved by ../domain/memory-filter.ts, applied in SQL before keyset pagination.
import type { CursorPosition } from '../domain/cursor.js';
import type { ResolvedFilter } from '../domain/memory-filter.js';
import type { ResolvedWindow } from '../domain/time-window.js';
import type { Database } from './db.js';
import type { Prisma } from './generated/prisma/client.js';
import { loadRecords, type LoadedRecord, type RecordNeeds } from './record-rows.js';

/** `list` applies from <= createdAt < to; `live` leaves a rolling window open above (see matchesFilter). */
function filterWhere(
  agentId: string,
  filter: ResolvedFilter,
  mode: 'list' | 'live',
): Prisma.MemoryWhereInput {
  const where: Prisma.MemoryWhereInput = { agentId };
  if (filter.types !== null) where.type = { in: filter.types };
  const window = filter.window;
  if (window !== null) {
    where.createdAt =
      mode === 'live' && window.rolling ? { gte: window.from } : { gte: window.from, lt: window.to };
  }
  return where;
}

/** Keyset condition: strictly older (`older`) or newer (`newer`) than `position` in (createdAt, id) order. */
function keysetWhere(position: CursorPosition, direction: 'older' | 'newer'): Prisma.MemoryWhereInput {
  const op = direction === 'older' ? 'lt' : 'gt';
  const bound = direction === 'older' ? 'lte' : 'gte';
  return {
    // The redundant range lets the (agentId, createdAt, id) index bound the scan.
    createdAt: { [bound]: position.createdAt },
    OR: [
      { createdAt: { [op]: position.createdAt } },
      { createdAt: position.createdAt, id: { [op]: position.id } },
    ],
  };
}

export interface MemoryPage {
  /** The rows of the page, newest first, with what the selection needs. */
  rows: LoadedRecord[];
  hasNextPage: boolean;
}

/**
 * One page of the browser (B2, B4): newest first by (createdAt DESC, id DESC), filtered in SQL
 * before the limit, strictly older than `after`. ONE named statement of `first + 1` rows with their
 * targets, links and provenance (issue 14: no statement per relation).
 */
export async function listMemoryPage(
  db: Database,
  agentId: string,
  filter: ResolvedFilter,
  page: { first: number; after: CursorPosition | null },
  needs: RecordNeeds,
): Promise<MemoryPage> {
  const values: unknown[] = [agentId];
  const param = (value: unknown) => `$${values.push(value)}`;
  const where = ['m."agentId" = $1'];
  // One type is an equality, so the (agentId, type, createdAt, id) index yields the page in order
  // (with `= ANY(…)` the planner of a prepared statement scans all the agent's records instead).
  const types = filter.types;
  if (types?.length === 1) where.push(`m.type = ${param(types[0])}`);
  else if (types !== null) where.push(`m.type = ANY(${param(types)}::text[])`);
  if (filter.window) {
    where.push(
      `m."createdAt" >= ${param(filter.window.from)} AND m."createdAt" < ${param(filter.window.to)}`,
    );
  }
  if (page.after) {
    const at = param(page.after.createdAt);
    // The redundant bound lets the (agentId, createdAt, id) index bound the scan.
    where.push(`m."createdAt" <= ${at} AND (m."createdAt", m.id) < (${at}, ${param(page.after.id)}::uuid)`);
  }
  const query = {
    name: 'page',
    where: where.join(' AND '),
    order: 'ORDER BY m."createdAt" DESC, m.id DESC',
    limit: `LIMIT ${param(page.first + 1)}`,
  } as const;
  const variant = [
    types === null ? '0' : types.length === 1 ? '1' : 'n',
    filter.window ? '1' : '0',
    page.after ? '1' : '0',
  ];
  const rows = await loadRecords(db.sql, needs, query, values, variant.join(''));
  return { rows: rows.slice(0, page.first), hasNextPage: rows.length > page.first };
}

/**
 * Replay for a resuming subscriber (L2): records matching `filter` (live semantics, see
 * matchesFilter) strictly newer than `position`, oldest first by (createdAt, id), at most `limit`.
 */
export async function listMemoryIdsAfter(
  db: Database,
  agentId: string,
  filter: ResolvedFilter,
  position: CursorPosition,
  limit: number,
): Promise<{ id: string; type: string; createdAt: Date }[]> {
  // Prisma reads a negative `take` as "from the end": refuse it rather than replay the wrong records.
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError(`limit must be a positive integer, got ${limit}`);
  return db.prisma.memory.findMany({
    select: { id: true, type: true, createdAt: true },
    where: { AND: [filterWhere(agentId, filter, 'live'), keysetWhere(position, 'newer')] },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    take: limit,
  });
}

export interface MemoryTypeCount {
  type: string;
  count: number;
}

/** B1: the agent's types as stored (custom ones included) with counts, only those in `window` when given. */
export async function listMemoryTypes(
  db: Database,
  agentId: string,
  window: ResolvedWindow | null,
): Promise<MemoryTypeCount[]> {
  const groups = await db.prisma.memory.groupBy({
    by: ['type'],
    where: filterWhere(agentId, { types: null, window }, 'list'),
    _count: { _all: true },
  });
  // Sorted here by code point: database collations disagree about `_`.
  return groups
    .map((group) => ({ type: group.type, count: group._count._all }))
    .sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
}

// The operator browser's reads (B1–B4) and the replay of a resuming subscriber (L2): filters
// resolved by ../domain/memory-filter.ts, applied in SQL before keyset pagination.
import type { CursorPosition } from '../domain/cursor.js';
import type { ResolvedFilter } from '../domain/memory-filter.js';
import type { ResolvedWindow } from '../domain/time-window.js';
import type { Database } from './db.js';
import type { Memory, Prisma } from './generated/prisma/client.js';

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

/** The Prisma selection for the records of a page (Pothos' planned query for `edges.node`). */
export interface MemoryQuery {
  select?: Prisma.MemorySelect;
  include?: Prisma.MemoryInclude;
}

export interface MemoryPage {
  /** The rows of the page, newest first, loaded with the given query (relations included). */
  rows: Memory[];
  hasNextPage: boolean;
}

/**
 * One page of the browser (B2, B4): newest first by (createdAt DESC, id DESC), filtered in SQL
 * before the limit, strictly older than `after`. One findMany of `first + 1` rows.
 */
export async function listMemoryPage(
  db: Database,
  agentId: string,
  filter: ResolvedFilter,
  page: { first: number; after: CursorPosition | null },
  query: MemoryQuery = {},
): Promise<MemoryPage> {
  const where = filterWhere(agentId, filter, 'list');
  const selection: MemoryQuery = query.select
    ? { select: { ...query.select, id: true, createdAt: true } }
    : query.include
      ? { include: query.include }
      : {};
  const rows = (await db.prisma.memory.findMany({
    ...selection,
    where: page.after ? { AND: [where, keysetWhere(page.after, 'older')] } : where,
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: page.first + 1,
  })) as Memory[];
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

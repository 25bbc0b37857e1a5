// The operator browser's reads (B1–B4) and the replay of a resuming subscriber (L2, in seq order):
// filters resolved by ../domain/memory-filter.ts, applied in SQL before keyset pagination.
import type { CursorPosition } from '../domain/cursor.js';
import type { ResolvedFilter } from '../domain/memory-filter.js';
import type { ResolvedWindow } from '../domain/time-window.js';
import type { Database } from './db.js';
import { loadRecords, type LoadedRecord, type RecordNeeds } from './record-rows.js';

/** Collects a statement's parameters; each call returns its placeholder (`$1`, `$2`, …). */
type Param = (value: unknown) => string;

function parameters(): { values: unknown[]; param: Param } {
  const values: unknown[] = [];
  return { values, param: (value) => `$${values.push(value)}` };
}

/**
 * The browse filter (B2, B3) as SQL conditions on `m`, the one definition every read uses: the
 * page, the type counts and a subscriber's replay. `list` applies from <= createdAt < to; `live`
 * leaves a rolling window open above (see matchesFilter).
 */
function filterSql(agentId: string, filter: ResolvedFilter, mode: 'list' | 'live', param: Param): string[] {
  const where = [`m."agentId" = ${param(agentId)}`];
  // One type is an equality, so the (agentId, type, createdAt, id) index yields the page in order
  // (with `= ANY(…)` the planner of a prepared statement scans all the agent's records instead).
  const types = filter.types;
  if (types?.length === 1) where.push(`m.type = ${param(types[0])}`);
  else if (types !== null) where.push(`m.type = ANY(${param(types)}::text[])`);
  const window = filter.window;
  if (window) {
    where.push(`m."createdAt" >= ${param(window.from)}`);
    if (mode === 'list' || !window.rolling) where.push(`m."createdAt" < ${param(window.to)}`);
  }
  return where;
}

/** The statement variant of a filter (a named statement must keep one text per name). */
function filterVariant(filter: ResolvedFilter, mode: 'list' | 'live'): string {
  const types = filter.types === null ? '0' : filter.types.length === 1 ? '1' : 'n';
  const window = !filter.window ? '0' : mode === 'live' && filter.window.rolling ? 'o' : '1';
  return types + window;
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
  const { values, param } = parameters();
  const where = filterSql(agentId, filter, 'list', param);
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
  const variant = filterVariant(filter, 'list') + (page.after ? '1' : '0');
  const rows = await loadRecords(db.sql, needs, query, values, variant);
  return { rows: rows.slice(0, page.first), hasNextPage: rows.length > page.first };
}

/** A record as live delivery orders and filters it (L1, L2). */
export interface SequencedMemory {
  id: string;
  type: string;
  createdAt: Date;
  seq: number;
}

/**
 * Replay for a resuming subscriber (L2): records matching `filter` (live semantics, see
 * matchesFilter) with `afterSeq < seq <= upToSeq`, in seq (commit) order, at most `limit`.
 * Only committed rows are read, and every seq up to a committed one is committed (see insertMemory).
 */
export async function listMemoriesInSeqRange(
  db: Database,
  agentId: string,
  filter: ResolvedFilter,
  range: { afterSeq: number; upToSeq: number },
  limit: number,
): Promise<SequencedMemory[]> {
  // A LIMIT below 1 would replay nothing (or fail): refuse it rather than skip records.
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError(`limit must be a positive integer, got ${limit}`);
  const { values, param } = parameters();
  const where = filterSql(agentId, filter, 'live', param);
  where.push(`m.seq > ${param(range.afterSeq)} AND m.seq <= ${param(range.upToSeq)}`);
  const rows = await db.sql.query<{ id: string; type: string; createdAt: Date; seq: string }>(
    `SELECT m.id, m.type, m."createdAt", m.seq::text AS seq FROM "Memory" m
     WHERE ${where.join(' AND ')} ORDER BY m.seq LIMIT ${param(limit)}`,
    values,
    `replay_${filterVariant(filter, 'live')}`,
  );
  return rows.map((row) => ({ ...row, createdAt: new Date(row.createdAt), seq: Number(row.seq) }));
}

/** L2: the agent's highest committed seq; every record up to it has committed (0: none yet). */
export async function committedSeq(db: Database, agentId: string): Promise<number> {
  const agent = await db.prisma.agent.findUnique({ where: { id: agentId }, select: { lastSeq: true } });
  return Number(agent?.lastSeq ?? 0);
}

/**
 * L2: where a cursor issued before seqs existed resumes — just below the first record after its
 * (createdAt, id) position, which is what it meant then (seqs were numbered in that order), or at
 * the committed seq when nothing is newer. A record committed out of order may come twice, never not.
 */
export async function seqBeforePosition(
  db: Database,
  agentId: string,
  position: CursorPosition,
): Promise<number> {
  const newer = await db.prisma.memory.aggregate({
    _min: { seq: true },
    where: {
      agentId,
      createdAt: { gte: position.createdAt },
      OR: [
        { createdAt: { gt: position.createdAt } },
        { createdAt: position.createdAt, id: { gt: position.id } },
      ],
    },
  });
  const first = newer._min.seq;
  return first === null ? committedSeq(db, agentId) : Number(first) - 1;
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
  const { values, param } = parameters();
  const where = filterSql(agentId, { types: null, window }, 'list', param);
  const groups = await db.sql.query<{ type: string; count: number }>(
    `SELECT m.type, count(*)::int AS count FROM "Memory" m WHERE ${where.join(' AND ')} GROUP BY m.type`,
    values,
    `types_${window ? '1' : '0'}`,
  );
  // Sorted here by code point: database collations disagree about `_`.
  return groups
    .map((group) => ({ type: group.type, count: group.count }))
    .sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
}

/** Every record of listMemoriesInSeqRange's range, read `pageSize` at a time, in seq order. */
export async function* memoriesInSeqRange(
  db: Database,
  agentId: string,
  filter: ResolvedFilter,
  range: { afterSeq: number; upToSeq: number },
  pageSize: number,
): AsyncGenerator<SequencedMemory> {
  for (let afterSeq = range.afterSeq; ;) {
    const page = await listMemoriesInSeqRange(db, agentId, filter, { ...range, afterSeq }, pageSize);
    yield* page;
    if (page.length < pageSize) return;
    afterSeq = page[page.length - 1]!.seq;
  }
}

// The operator browser's reads (B1–B4) and the replay of a resuming subscriber (L2, in seq order):
// filters resolved by ../domain/memory-filter.ts, applied in SQL (./filter-sql.ts) before keyset
// pagination.
import type { CursorPosition } from '../domain/cursor.js';
import { MAX_PAGE_SIZE, type FilterFacts, type ResolvedFilter } from '../domain/memory-filter.js';
import type { Database } from './db.js';
import { filterSql, parameters, statementName } from './filter-sql.js';
import { loadRecords, type LoadedRecord, type RecordNeeds } from '../records/record-rows.js';
import { withLiveness, type TokenLiveness } from './tokens.js';

export interface MemoryPage {
  /** The rows of the page, newest first, with what the selection needs. */
  rows: LoadedRecord[];
  hasNextPage: boolean;
}

/**
 * One page of the browser (B2, B4): newest first by (createdAt DESC, id DESC), filtered in SQL
 * before the limit, strictly older than `after`, and committed by `upToSeq` when given (a snapshot:
 * a record committed later — an import of older history, a slow write — stays out whatever its
 * createdAt). ONE named statement of `first + 1` rows with their targets, links and provenance
 * (no statement per relation). With `liveness`, the caller's token is checked in the same
 * statement: a token that stopped authenticating reads an empty page (auth/caller.ts readLive).
 */
export async function listMemoryPage(
  db: Database,
  agentId: string,
  filter: ResolvedFilter,
  page: { first: number; after: CursorPosition | null; upToSeq?: number },
  needs: RecordNeeds,
  liveness: TokenLiveness | null = null,
): Promise<MemoryPage> {
  // B2: the statement's bound (maxRows below); a larger page would be cut short.
  if (page.first > MAX_PAGE_SIZE)
    throw new RangeError(`first must be at most ${MAX_PAGE_SIZE}, got ${page.first}`);
  const { values, param } = parameters();
  const filtered = filterSql(agentId, filter, 'list', param);
  const { agent } = filtered;
  const { where, variant } = withLiveness(filtered, liveness, param);
  if (page.after) {
    const at = param(page.after.createdAt);
    // The redundant bound lets the (agentId, createdAt, id) index bound the scan.
    where.push(`m."createdAt" <= ${at} AND (m."createdAt", m.id) < (${at}, ${param(page.after.id)}::uuid)`);
  }
  if (page.upToSeq !== undefined) where.push(`m.seq <= ${param(page.upToSeq)}`);
  // B4: an export's pages (upToSeq) are planned with their values: with a window, the generic plan
  // guessed one row and sorted the whole window for every page.
  const named = variant !== null && page.upToSeq === undefined;
  const query = {
    name: 'page',
    agent,
    where: where.join(' AND '),
    order: 'ORDER BY m."createdAt" DESC, m.id DESC',
    limit: `LIMIT ${param(page.first + 1)}`,
    maxRows: MAX_PAGE_SIZE + 1,
  } as const;
  const rows = await loadRecords(
    db.sql,
    needs,
    query,
    values,
    named ? `${variant}${page.after ? '_a' : ''}` : null,
  );
  return { rows: rows.slice(0, page.first), hasNextPage: rows.length > page.first };
}

/** A record as live delivery orders and filters it (L1, L2): its place and what matchesFilter reads. */
export interface SequencedMemory extends FilterFacts {
  id: string;
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
  const { where, variant, agent } = filterSql(agentId, filter, 'live', param);
  // L2: in seq order, how much of the range a type or a window keeps decides between walking the
  // range and that condition's index, so such a replay is planned with its values (unnamed).
  const named = variant !== null && !/[tw]/.test(variant) ? variant : null;
  where.push(`m.seq > ${param(range.afterSeq)} AND m.seq <= ${param(range.upToSeq)}`);
  const rows = await db.sql.query<Omit<SequencedMemory, 'seq'> & { seq: string }>(
    `SELECT m.id, m.type, m."createdAt", m.seq::text AS seq, m."producerId", m."runKind", m."expiresAt",
            ARRAY(SELECT t."instrumentId" FROM "MemoryTarget" t
                    WHERE t."agentId" = ${agent} AND t."memoryId" = m.id ORDER BY t.position) AS instruments
       FROM "Memory" m WHERE ${where.join(' AND ')} ORDER BY m.seq LIMIT ${param(limit)}`,
    values,
    statementName('replay', named),
  );
  return rows.map((row) => ({
    ...row,
    createdAt: new Date(row.createdAt),
    expiresAt: row.expiresAt === null ? null : new Date(row.expiresAt),
    seq: Number(row.seq),
  }));
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

/**
 * B1: the agent's types as stored (custom ones included) with counts of the records the filter
 * leaves — every field of it but `types` itself, so the list offers every type the other filters
 * leave and a page's total is the sum of its selected types' counts. `liveness`: as listMemoryPage.
 */
export async function listMemoryTypes(
  db: Database,
  agentId: string,
  filter: ResolvedFilter,
  liveness: TokenLiveness | null = null,
): Promise<MemoryTypeCount[]> {
  const { values, param } = parameters();
  const listed = filterSql(agentId, { ...filter, types: null }, 'list', param);
  const { where, variant } = withLiveness(listed, liveness, param);
  // B1: a count reads every match; with a window and run kinds their values decide whose index reads
  // fewer rows (the generic plan read 34× the rows for the bench's big agent), so it is unnamed.
  const named = variant !== null && !(variant.includes('w') && variant.includes('k')) ? variant : null;
  const groups = await db.sql.query<{ type: string; count: number }>(
    `SELECT m.type, count(*)::int AS count FROM "Memory" m WHERE ${where.join(' AND ')} GROUP BY m.type`,
    values,
    statementName('types', named),
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

// The export's reads (B12): every record of a filtered view, newest first, one keyset page
// at a time through the browser's own page statement (B2, B4). The caller resolves the filter once,
// so every page shares one window: records added during a long export neither shift nor repeat it.
import type { CursorPosition } from '../domain/cursor.js';
import type { ResolvedFilter } from '../domain/memory-filter.js';
import { committedSeq, listMemoryPage } from '../store/browse.js';
import type { Database } from '../store/db.js';
import type { MemoryRecord } from '../records/record-shape.js';
import { WHOLE_RECORD, wholeRecord } from '../records/record-rows.js';

/** Records per statement: a page is what the export holds in memory (≈ 100 × a record's size, W7 bounds it). */
export const EXPORT_PAGE_SIZE = 100;

/**
 * The pages of the view, each non-empty; the next statement runs only when the consumer asks for the
 * next page (a stopped consumer stops the reads: call `return()`). The view is what had committed
 * when the first page was asked for (L2's seq): keyset pages alone would take in a record committed
 * later below the pages already sent (imported history, a slow write).
 */
export async function* exportPages(
  db: Database,
  agentId: string,
  filter: ResolvedFilter,
): AsyncGenerator<MemoryRecord[], void, undefined> {
  const upToSeq = await committedSeq(db, agentId);
  let after: CursorPosition | null = null;
  for (;;) {
    const page = await listMemoryPage(
      db,
      agentId,
      filter,
      { first: EXPORT_PAGE_SIZE, after, upToSeq },
      WHOLE_RECORD,
    );
    const last = page.rows.at(-1);
    if (last) yield page.rows.map(wholeRecord);
    if (!page.hasNextPage || !last) return;
    after = { createdAt: last.createdAt, id: last.id };
  }
}

// The browse dataset in an embedded PGlite data folder: the same statements as
// bench:data (browse-data.ts), run in this process on a PGlite instance opened by the service's own
// openDatabase and migrated by its migrations, then closed before the service starts on the folder
// (S5: one process per folder; the bench holds the service's lock while it loads).
//
// The folder ends at the same instant as the PostgreSQL dataset it is compared with, so both hold
// identical rows (the 24 h window included); it is reused while complete with that end, else
// emptied and loaded again. The full 500,000 records load in ≈ 3.3 min on PGlite here (≈ 1.9 GB).
import { existsSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { LOCK_FILE_NAME, lockDataDir } from '../src/data-dir-lock.js';
import { openDatabase } from '../src/store/db.js';
import { datasetStatements, loadedEndQuery, type BrowseDataset } from './browse-data.js';
import { runInOneTransaction } from './support.js';

/** The data folder: BENCH_PGLITE_DIR, else one per size under the system's temporary folder. */
export function pgliteDataDir(records: number): string {
  return process.env.BENCH_PGLITE_DIR || path.join(os.tmpdir(), `memory-bench-pglite-${records}`);
}

/** The newest instant of a complete load in the folder, else null (no folder, no schema, no marker). */
async function loadedEnd(dataDir: string, records: number): Promise<Date | null> {
  if (!existsSync(dataDir)) return null;
  const db = await openDatabase({ dataDir });
  try {
    const [sql, params] = loadedEndQuery(records);
    const found = await db.pglite!.query<{ createdAt: Date }>(sql, params);
    return found.rows[0]?.createdAt ?? null;
  } catch {
    return null;
  } finally {
    await db.close();
  }
}

/**
 * The PostgreSQL dataset `like`'s rows in a PGlite folder (same size, same end): reused when a
 * complete load with that end is there, else loaded. Resolves with the folder, closed.
 */
export async function preparePgliteDataset(
  like: BrowseDataset,
  log: (line: string) => void,
): Promise<string> {
  const dataDir = pgliteDataDir(like.records);
  const lock = lockDataDir(dataDir); // throws when a service still runs on the folder (S5)
  try {
    const end = await loadedEnd(dataDir, like.records);
    if (end?.getTime() === like.end.getTime()) {
      log(
        `browse data (PGlite): reusing ${like.records} records in ${dataDir} (newest ${end.toISOString()})`,
      );
      return dataDir;
    }
    log(
      `browse data (PGlite): loading ${like.records} records into ${dataDir}, ending ${like.end.toISOString()}`,
    );
    const started = performance.now();
    for (const entry of await readdir(dataDir))
      if (entry !== LOCK_FILE_NAME) await rm(path.join(dataDir, entry), { recursive: true, force: true });
    const db = await openDatabase({ dataDir });
    try {
      await db.migrate();
      const pglite = db.pglite!;
      const run = async (sql: string) => (await pglite.exec(sql)).at(-1)?.affectedRows ?? 0;
      await runInOneTransaction(run, datasetStatements(like.records, like.end), log);
      await pglite.exec('VACUUM ANALYZE');
    } finally {
      await db.close();
    }
    log(`browse data (PGlite): loaded in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return dataDir;
  } finally {
    lock.release();
  }
}

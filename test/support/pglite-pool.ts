// A worker's embedded databases, lent to one test file at a time and emptied when it gives them back.
//
// Opening a PGlite from the migrated snapshot costs 1–2.5 s of CPU (the WebAssembly module, the
// data folder unpacked, the server started); emptying one costs a few milliseconds. The files of a
// worker run one after another (vitest.config.ts: `isolate: false`), so a file gets the PGlite the
// previous one gave back, exactly as fresh as a new one:
//
// - its tables are emptied (TRUNCATE … RESTART IDENTITY) and their planner statistics deleted;
// - its session is reset (DISCARD ALL: settings, prepared statements, temporary tables, locks);
// - the catalog, the settings and the migration history must then read exactly as they did when it
//   was opened (a fingerprint): a file that changed the schema (DDL, a temporary schema, ALTER
//   SYSTEM) gives back a database nobody gets again — it is closed, and the next file opens a new one.
//
// A lent database refuses every call once given back, so a late statement of the previous file's
// service (a timer, an unawaited read) fails as it would on a closed database instead of reaching
// the next file's data. A database whose reset fails or does not finish in time (a transaction
// left open) is dropped too.
import { readFile } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';

/** Idle databases kept per worker: a file rarely holds more than two at once. */
const MAX_IDLE = 2;
/** A reset takes milliseconds; one that waits behind a transaction its file left open never ends. */
const RESET_TIMEOUT_MS = 5_000;

interface Pool {
  idle: PGlite[];
  /** The fingerprint of a database fresh from the snapshot, taken when the worker opened its first one. */
  pristine: Map<string, string>;
  /** What happened to the databases given back (read by the pool's own test). */
  counts: { opened: number; reused: number; dropped: number };
}

// On globalThis, not in this module: a file that resets its modules (vi.resetModules) loads this
// module again, and must still find the worker's databases.
const POOL = Symbol.for('memory-service.test.pglite-pool');
const holder = globalThis as typeof globalThis & { [POOL]?: Pool };
const pool: Pool = (holder[POOL] ??= {
  idle: [],
  pristine: new Map(),
  counts: { opened: 0, reused: 0, dropped: 0 },
});

export interface PgliteLease {
  /** The database, for this file only: every call fails once it is given back. */
  readonly pglite: PGlite;
  /** Ends the lease: the database is emptied and kept for the next file, or closed. */
  giveBack(): Promise<void>;
}

/** An empty, migrated PGlite from `snapshotFile`: one the worker has given back, or a new one. */
export async function lendPglite(snapshotFile: string): Promise<PgliteLease> {
  const pglite = pool.idle.pop() ?? (await openFresh(snapshotFile));
  let revoked = false;
  const lent = new Proxy(pglite, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (revoked) throw new Error('PGlite is closed: its test file gave it back');
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return {
    pglite: lent,
    async giveBack() {
      if (revoked) return;
      revoked = true;
      const expected = pool.pristine.get(snapshotFile)!;
      const clean = await withTimeout(reset(pglite).then((fingerprint) => fingerprint === expected));
      if (clean && pool.idle.length < MAX_IDLE) {
        pool.counts.reused++;
        pool.idle.push(pglite);
        return;
      }
      pool.counts.dropped++;
      const closing = pglite.close().catch(() => undefined);
      // One stuck behind a transaction its file left open would wait for it: that close is not awaited.
      if (clean !== null) await closing;
    },
  };
}

/** How many databases the worker opened, kept and dropped so far. */
export function pgliteLeaseCounts(): Readonly<Pool['counts']> {
  return { ...pool.counts };
}

async function openFresh(snapshotFile: string): Promise<PGlite> {
  const pglite = await PGlite.create('memory://', {
    loadDataDir: new Blob([await readFile(snapshotFile)]),
  });
  pool.counts.opened++;
  if (!pool.pristine.has(snapshotFile)) pool.pristine.set(snapshotFile, await fingerprint(pglite));
  return pglite;
}

/** Empties the database and resets its session; resolves with its fingerprint afterwards. */
async function reset(pglite: PGlite): Promise<string | null> {
  try {
    await pglite.exec('DISCARD ALL');
    const { rows } = await pglite.query<{ tables: string | null }>(
      `SELECT string_agg(oid::regclass::text, ', ') AS tables FROM pg_class
        WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'p') AND relname <> '_prisma_migrations'`,
    );
    if (rows[0]?.tables) await pglite.exec(`TRUNCATE ${rows[0].tables} RESTART IDENTITY CASCADE`);
    await pglite.exec(
      `DELETE FROM pg_statistic WHERE starelid IN (SELECT oid FROM pg_class WHERE relnamespace = 'public'::regnamespace)`,
    );
    return await fingerprint(pglite);
  } catch {
    return null;
  }
}

/**
 * Everything a file could change that emptying the tables does not undo: relations and their
 * columns, functions, triggers, constraints, indexes, schemas, extensions, roles, settings, and the
 * migration history.
 */
async function fingerprint(pglite: PGlite): Promise<string> {
  const { rows } = await pglite.query<{ digest: string }>(`
    SELECT md5(string_agg(item, E'\\n' ORDER BY item)) AS digest FROM (
      SELECT concat_ws(' ', 'class', oid, relname, relkind, relnatts, reloptions) FROM pg_class
      UNION ALL SELECT concat_ws(' ', 'attribute', attrelid, attnum, attname, atttypid, attnotnull,
        atthasdef, attisdropped) FROM pg_attribute WHERE attrelid >= 16384
      UNION ALL SELECT concat_ws(' ', 'proc', oid, proname, md5(prosrc)) FROM pg_proc WHERE oid >= 16384
      UNION ALL SELECT concat_ws(' ', 'trigger', oid, tgname, tgenabled) FROM pg_trigger
      UNION ALL SELECT concat_ws(' ', 'constraint', oid, conname, convalidated) FROM pg_constraint
      UNION ALL SELECT concat_ws(' ', 'index', indexrelid, indisvalid) FROM pg_index
      UNION ALL SELECT concat_ws(' ', 'namespace', oid, nspname) FROM pg_namespace
      UNION ALL SELECT concat_ws(' ', 'extension', extname, extversion) FROM pg_extension
      UNION ALL SELECT concat_ws(' ', 'role', rolname, rolsuper) FROM pg_roles
      UNION ALL SELECT concat_ws(' ', 'role setting', setdatabase, setrole, setconfig) FROM pg_db_role_setting
      UNION ALL SELECT concat_ws(' ', 'setting', name, setting) FROM pg_settings
      UNION ALL SELECT concat_ws(' ', 'migration', id, checksum, finished_at, rolled_back_at)
        FROM _prisma_migrations
    ) AS catalog(item)`);
  return rows[0]!.digest;
}

/** The reset's answer, or null when it did not finish in time. */
async function withTimeout<T>(work: Promise<T>): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), RESET_TIMEOUT_MS);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

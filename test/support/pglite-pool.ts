// A worker's embedded databases, lent to one test file at a time and emptied when it gives them back.
//
// Opening a PGlite from the migrated snapshot costs 1–2.5 s of CPU (the WebAssembly module, the
// data folder unpacked, the server started); emptying one costs a few milliseconds. The files of a
// worker run one after another (vitest.config.ts: `isolate: false`), so a file gets the PGlite the
// previous one gave back, exactly as fresh as a new one:
//
// - its tables are emptied (TRUNCATE … RESTART IDENTITY) and their planner statistics deleted;
// - its session is reset (DISCARD ALL: settings, prepared statements, temporary tables, locks,
//   LISTEN), and so is the JavaScript side PGlite keeps across it: the listeners a file added and
//   the type parsers and serializers it changed;
// - the catalog, the settings and the migration history must then read exactly as they did when it
//   was opened (a fingerprint): a file that created, altered or commented on any object (a table,
//   a default, a rule, an enum value, a policy, a grant, a large object, a temporary schema), or ran
//   ALTER SYSTEM, gives back a database nobody gets again — it is closed, and the next file opens a
//   new one.
//
// What no catalog shows is not checked: a custom setting (`set_config('app.x', …)`) a file defined
// stays defined, empty, after DISCARD ALL. The service defines none.
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
  idle: Instance[];
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

/** A database and the JavaScript-side state of it that DISCARD ALL does not reset. */
interface Instance {
  pglite: PGlite;
  /** The type parsers and serializers as opened. */
  parsers: PGlite['parsers'];
  serializers: PGlite['serializers'];
  /** What the lease's file added: `listen` callbacks and `onNotification` ones. */
  listeners: [channel: string, callback: (payload: string) => void][];
  notified: Set<(channel: string, payload: string) => void>;
}

export interface PgliteLease {
  /** The database, for this file only: every call fails once it is given back. */
  readonly pglite: PGlite;
  /** Ends the lease: the database is emptied and kept for the next file, or closed. */
  giveBack(): Promise<void>;
}

/** An empty, migrated PGlite from `snapshotFile`: one the worker has given back, or a new one. */
export async function lendPglite(snapshotFile: string): Promise<PgliteLease> {
  const instance = pool.idle.pop() ?? (await openFresh(snapshotFile));
  const { pglite } = instance;
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
  let givenBack: Promise<void> | undefined;
  return {
    pglite: lent,
    giveBack() {
      revoked = true;
      return (givenBack ??= keepOrClose(instance, pool.pristine.get(snapshotFile)!));
    },
  };
}

async function keepOrClose(instance: Instance, expected: string): Promise<void> {
  const clean = await withTimeout(reset(instance).then((fingerprint) => fingerprint === expected));
  if (clean && pool.idle.length < MAX_IDLE) {
    pool.counts.reused++;
    pool.idle.push(instance);
    return;
  }
  pool.counts.dropped++;
  const closing = instance.pglite.close().catch(() => undefined);
  // One stuck behind a transaction its file left open would wait for it: that close is not awaited.
  if (clean !== null) await closing;
}

/** How many databases the worker opened, kept and dropped so far. */
export function pgliteLeaseCounts(): Readonly<Pool['counts']> {
  return { ...pool.counts };
}

async function openFresh(snapshotFile: string): Promise<Instance> {
  const pglite = await PGlite.create('memory://', {
    loadDataDir: new Blob([await readFile(snapshotFile)]),
  });
  pool.counts.opened++;
  const instance = recordListeners({
    pglite,
    parsers: { ...pglite.parsers },
    serializers: { ...pglite.serializers },
    listeners: [],
    notified: new Set(),
  });
  if (!pool.pristine.has(snapshotFile)) pool.pristine.set(snapshotFile, await fingerprint(pglite));
  return instance;
}

/**
 * Records the callbacks a file adds, whichever way it adds them (a transaction's `listen` calls the
 * instance's own), so that giving the database back removes them: PGlite keeps them in JavaScript,
 * where DISCARD ALL's UNLISTEN does not reach.
 */
function recordListeners(instance: Instance): Instance {
  const { pglite } = instance;
  const listen = pglite.listen.bind(pglite);
  pglite.listen = (channel, callback, tx) => {
    instance.listeners.push([channel, callback]);
    return listen(channel, callback, tx);
  };
  const onNotification = pglite.onNotification.bind(pglite);
  pglite.onNotification = (callback) => {
    instance.notified.add(callback);
    return onNotification(callback);
  };
  return instance;
}

/** Empties the database and resets its session; resolves with its fingerprint afterwards. */
async function reset(instance: Instance): Promise<string | null> {
  const { pglite } = instance;
  try {
    for (const [channel, callback] of instance.listeners.splice(0)) await pglite.unlisten(channel, callback);
    for (const callback of instance.notified) pglite.offNotification(callback);
    instance.notified.clear();
    restore(pglite.parsers, instance.parsers);
    restore(pglite.serializers, instance.serializers);
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

/** Makes `target` hold exactly `saved`'s entries again. */
function restore<T extends object>(target: T, saved: T): void {
  for (const key of Object.keys(target)) if (!(key in saved)) delete target[key as keyof T];
  Object.assign(target, saved);
}

/**
 * Everything a file could change that emptying the tables does not undo. Every object made after
 * initdb (an oid from 16384 on), whole, in every catalog that has oids: relations' types, columns'
 * defaults, functions, triggers, rules, constraints, enum values, policies, extended statistics,
 * default privileges, schemas, extensions, roles…; relations and databases by the columns that do
 * not change with their data (TRUNCATE gives a table a new file; ANALYZE new counts); columns,
 * indexes, comments, large objects, role settings, settings, the settings files (ALTER SYSTEM) and
 * the migration history. Exported for the pool's own test.
 */
export async function fingerprint(pglite: PGlite): Promise<string> {
  // The first plpgsql block of a session defines plpgsql's settings (pg_settings gains rows): loaded
  // first, a file's trigger or DO block does not read as a change.
  await pglite.exec('DO $$ BEGIN END $$');
  fingerprintQuery ??= await buildFingerprintQuery(pglite);
  const { rows } = await pglite.query<{ digest: string }>(fingerprintQuery);
  return rows[0]!.digest;
}

/** The catalogs are PostgreSQL's own, the same in every database of a run: the query is built once. */
let fingerprintQuery: string | undefined;

async function buildFingerprintQuery(pglite: PGlite): Promise<string> {
  const { rows: catalogs } = await pglite.query<{ name: string }>(`
    SELECT c.relname AS name FROM pg_class c
      JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'oid' AND NOT a.attisdropped
     WHERE c.relnamespace = 'pg_catalog'::regnamespace AND c.relkind = 'r'
       AND c.relname NOT IN ('pg_class', 'pg_database', 'pg_largeobject_metadata')`);
  const made = catalogs.map(
    ({ name }) => `UNION ALL SELECT '${name} ' || t::text FROM pg_catalog.${name} t WHERE oid >= 16384`,
  );
  return `
    SELECT md5(string_agg(item, E'\\n' ORDER BY item)) AS digest FROM (
      SELECT concat_ws(' ', 'class', oid, relname, relnamespace, reltype, reloftype, relowner, relam,
        reltablespace, reltoastrelid, relisshared, relpersistence, relkind, relnatts, relchecks,
        relhasrules, relhastriggers, relhassubclass, relrowsecurity, relforcerowsecurity, relispopulated,
        relreplident, relispartition, relacl, reloptions) FROM pg_class
      ${made.join('\n      ')}
      UNION ALL SELECT concat_ws(' ', 'database', datname, datdba, encoding, datistemplate, datallowconn,
        datconnlimit, datacl) FROM pg_database
      UNION ALL SELECT 'attribute ' || t::text FROM pg_attribute t WHERE attrelid >= 16384
      UNION ALL SELECT 'index ' || t::text FROM pg_index t
      UNION ALL SELECT 'description ' || t::text FROM pg_description t
      UNION ALL SELECT 'shared description ' || t::text FROM pg_shdescription t
      UNION ALL SELECT 'large object ' || t::text FROM pg_largeobject_metadata t
      UNION ALL SELECT 'role ' || t::text FROM pg_roles t
      UNION ALL SELECT 'role setting ' || t::text FROM pg_db_role_setting t
      UNION ALL SELECT concat_ws(' ', 'setting', name, setting) FROM pg_settings
      UNION ALL SELECT concat_ws(' ', 'settings file', sourcefile, name, setting) FROM pg_file_settings
      UNION ALL SELECT concat_ws(' ', 'migration', id, checksum, finished_at, rolled_back_at)
        FROM _prisma_migrations
    ) AS catalog(item)`;
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

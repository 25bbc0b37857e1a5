// One code path over two databases: PostgreSQL through `pg`, or embedded PGlite in a folder.
// Everything above the driver adapter is identical.
import { mkdir } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import pg from 'pg';
import { PrismaClient } from './generated/prisma/client.js';
import { applyMigrations } from './migrate.js';
import { ReadCancelledError } from '../domain/errors.js';
import { expensiveGate, gated } from './slots.js';
import { DEFAULT_POOL_SIZE } from './pool-sizes.js';
import { openPools, pgSql, type DirectSql, type Observe, type PgPools, type PoolName } from './pg-pools.js';
import {
  observePrisma,
  observeSql,
  type StatementHook,
  type StatementListener,
} from './statement-observer.js';
import type { WriteForm } from './write-form.js';

export type { PrismaClient };

export type { PoolName };

/** S7: a write's bound is this many times a read's (the one-statement write, imports, finishRun). */
export const WRITE_TIMEOUT_FACTOR = 5;

export interface DatabaseConfig {
  /** `postgres://…` ⇒ PostgreSQL; undefined ⇒ embedded PGlite. */
  databaseUrl?: string;
  /** PGlite folder; `memory://` keeps it in memory (tests). */
  dataDir: string;
  /** DATABASE_POOL_SIZE (default DEFAULT_POOL_SIZE): PostgreSQL's pools are sized from it by ./pool-sizes.ts. */
  poolSize?: number;
  /** PostgreSQL: named statements planned once per connection, as generic plans (default true). */
  genericPlans?: boolean;
  /** D2: how the record write is sent (default `statement`; see ./write-form.ts). */
  writeForm?: WriteForm;
  /** S7: database time a read may take on PostgreSQL, in ms (default 2000); writes get WRITE_TIMEOUT_FACTOR × it. */
  statementTimeoutMs?: number;
  /** PGlite only: start from a dumped data folder (tests start from an already migrated copy). */
  pgliteSnapshot?: Blob;
  /**
   * PGlite only: an open embedded database to use instead of opening `dataDir`; its owner closes it
   * (close() leaves it open). Tests lend one per worker (test/support/pglite-pool.ts).
   */
  pglite?: PGlite;
  /** Tests only: hears every statement sent (round-trip snapshots); the service never sets it. */
  onStatement?: StatementListener;
  /** Tests only: runs before every direct SQL statement (fault injection); the service never sets it. */
  beforeStatement?: StatementHook;
}

/** Direct SQL on the driver (no ORM layer) for the hot paths; identical PostgreSQL SQL on both databases. */
export interface Sql {
  /**
   * `name` makes it a named prepared statement on pg (parsed and planned once per connection; the
   * same name must always carry the same text). PGlite has none and ignores it.
   */
  query<T = Record<string, unknown>>(text: string, params?: unknown[], name?: string): Promise<T[]>;
  /** Set on the Sql `sqlTransaction` hands its work: one connection, between BEGIN and COMMIT. */
  readonly inTransaction?: true;
}

/** How the reads of one request run (S8, S9); see Database.scoped. */
export interface StatementScope {
  /** Aborted ⇒ the scope's running statements are cancelled and its next ones never start (S9). */
  signal?: AbortSignal;
  /** Searches, exports, MCP list calls: on capacity of their own (S8). */
  expensive?: boolean;
}

export interface Database {
  readonly kind: 'postgres' | 'pglite';
  readonly prisma: PrismaClient;
  /** Reads on the driver (the hot paths skip the ORM's per-query overhead), bounded by S7. */
  readonly sql: Sql;
  /** The record write (W9's one statement): its own pool and its larger bound; never cancelled by a scope. */
  readonly writeSql: Sql;
  /** D2: how the record write is sent (./write-form.ts). */
  readonly writeForm: WriteForm;
  /** Runs `work` in one transaction on the write pool: committed when it resolves, rolled back when it throws. */
  sqlTransaction<T>(work: (sql: Sql) => Promise<T>): Promise<T>;
  /**
   * The same database whose `sql` reads follow `scope` (merged with this one's): cancelled with its
   * signal, on the expensive pool when `expensive`. Prisma, writes and transactions are unchanged.
   */
  scoped(scope: StatementScope): Database;
  /** The PostgreSQL pools by name (null for PGlite), for metrics. */
  readonly pools: Readonly<Record<PoolName, pg.Pool>> | null;
  /** The embedded database (null for PostgreSQL). */
  readonly pglite: PGlite | null;
  migrate(): Promise<string[]>;
  /** Throws when the database does not answer. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

const DEFAULT_STATEMENT_TIMEOUT_MS = 2000;

export async function openDatabase(config: DatabaseConfig): Promise<Database> {
  const statementTimeoutMs = config.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  if (config.databaseUrl) {
    const connectionString = config.databaseUrl;
    const pools = openPools({
      connectionString,
      poolSize: config.poolSize ?? DEFAULT_POOL_SIZE,
      statementTimeoutMs,
      writeTimeoutMs: statementTimeoutMs * WRITE_TIMEOUT_FACTOR,
      genericPlans: config.genericPlans ?? true,
    });
    const adapter = new PrismaPg(pools.queries.pool);
    const driver: Driver = {
      kind: 'postgres',
      adapter,
      pools,
      pglite: null,
      // Migrations may rewrite a table: no statement bound, on a connection of their own.
      migrate: async () => {
        const pool = new pg.Pool({ connectionString, max: 1, statement_timeout: 0 });
        try {
          return await applyMigrations(new PrismaPg(pool));
        } finally {
          await pool.end();
        }
      },
      close: async () => {
        await Promise.all(Object.values(pools).map((target) => target.pool.end()));
      },
    };
    return makeDatabase(driver, statementTimeoutMs, config);
  }
  const lent = config.pglite;
  if (lent && config.pgliteSnapshot)
    throw new Error('openDatabase: pglite and pgliteSnapshot exclude each other');
  if (!lent && !config.dataDir.startsWith('memory://')) await mkdir(config.dataDir, { recursive: true });
  const pglite =
    lent ??
    (await PGlite.create(
      config.dataDir,
      config.pgliteSnapshot ? { loadDataDir: config.pgliteSnapshot } : {},
    ));
  const adapter = new PrismaPGlite(pglite);
  const driver: Driver = {
    kind: 'pglite',
    adapter,
    pools: null,
    pglite,
    migrate: () => applyMigrations(adapter),
    close: async () => {
      if (!lent) await pglite.close();
    },
  };
  return makeDatabase(driver, statementTimeoutMs, config);
}

interface Driver {
  kind: Database['kind'];
  adapter: SqlMigrationAwareDriverAdapterFactory;
  pools: PgPools | null;
  pglite: PGlite | null;
  migrate(): Promise<string[]>;
  close(): Promise<void>;
}

function makeDatabase(
  driver: Driver,
  statementTimeoutMs: number,
  {
    onStatement,
    beforeStatement,
    writeForm = 'statement',
  }: Pick<DatabaseConfig, 'onStatement' | 'beforeStatement' | 'writeForm'>,
): Database {
  const { kind, adapter, pools, pglite } = driver;
  const prisma = new PrismaClient({ adapter: onStatement ? observePrisma(adapter, onStatement) : adapter });
  const observed = observedBy(onStatement, beforeStatement);
  const direct = pools
    ? pgSql(pools, observed)
    : pgliteSql(pglite!, observed, onStatement, statementTimeoutMs);
  const poolsByName = pools && {
    queries: pools.queries.pool,
    named: pools.named.pool,
    writes: pools.writes.pool,
    expensive: pools.expensive.pool,
  };
  let closed = false;
  const withScope = (scope: StatementScope): Database => ({
    kind,
    prisma,
    sql: direct.reads(scope),
    writeSql: direct.writes,
    writeForm,
    sqlTransaction: direct.sqlTransaction,
    scoped: (more) => withScope({ ...scope, ...more }),
    pools: poolsByName,
    pglite,
    migrate: () => driver.migrate(),
    async ping() {
      await prisma.$queryRaw`SELECT 1`;
    },
    async close() {
      if (closed) return;
      closed = true;
      await prisma.$disconnect();
      await driver.close();
    },
  });
  return withScope({});
}

const observedBy =
  (onStatement?: StatementListener, hook?: StatementHook): Observe =>
  (sql) =>
    onStatement || hook ? observeSql(sql, onStatement, hook) : sql;

/**
 * PGlite's own timestamp parsers read years below 100 as 19xx/20xx (`0099-12-31` ⇒ 1999); pg's
 * parsers (postgres-date) read every year PostgreSQL stores, so both drivers answer the same instant (W10).
 */
const PGLITE_PARSERS = {
  1114: pg.types.getTypeParser(1114, 'text'),
  1184: pg.types.getTypeParser(1184, 'text'),
};

function pgliteSql(
  pglite: PGlite,
  observed: Observe,
  onStatement: StatementListener | undefined,
  statementTimeoutMs: number,
): DirectSql {
  // PGlite runs one statement at a time and cannot interrupt one (no statement_timeout, the event
  // loop waits for it): a read whose request ended before its turn is not started (S9).
  const run = (signal?: AbortSignal): Sql =>
    observed({
      query: async <T>(text: string, params: unknown[] = []) => {
        if (signal?.aborted) throw new ReadCancelledError();
        return (await pglite.query<T>(text, params, { parsers: PGLITE_PARSERS })).rows;
      },
    });
  // PGlite sends BEGIN and COMMIT/ROLLBACK itself; an observer hears them as on pg's path.
  const boundary = (text: 'BEGIN' | 'COMMIT' | 'ROLLBACK') => onStatement?.({ via: 'sql', text });
  // One expensive statement at a time in PGlite's queue: another caller's statement waits behind
  // at most one of them (S8).
  const gate = expensiveGate(1, statementTimeoutMs);
  return {
    reads: (scope) =>
      scope.expensive ? gated(run(scope.signal), gate, scope.signal, true) : run(scope.signal),
    writes: run(),
    async sqlTransaction<T>(work: (sql: Sql) => Promise<T>): Promise<T> {
      boundary('BEGIN');
      let committed = false;
      try {
        const result = await pglite.transaction((tx) =>
          work({
            ...observed({
              query: async <R>(text: string, params: unknown[] = []) =>
                (await tx.query<R>(text, params, { parsers: PGLITE_PARSERS })).rows,
            }),
            inTransaction: true,
          }),
        );
        committed = true;
        return result;
      } finally {
        boundary(committed ? 'COMMIT' : 'ROLLBACK');
      }
    },
  };
}

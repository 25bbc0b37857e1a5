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
import { observePrisma, observeSql, type StatementListener } from './statement-observer.js';

export type { PrismaClient };

export type PoolName = 'queries' | 'named';

export interface DatabaseConfig {
  /** `postgres://…` ⇒ PostgreSQL; undefined ⇒ embedded PGlite. */
  databaseUrl?: string;
  /** PGlite folder; `memory://` keeps it in memory (tests). */
  dataDir: string;
  /** Pool size for PostgreSQL (each of its two pools). */
  poolSize?: number;
  /** PostgreSQL: named statements planned once per connection, as generic plans (default true). */
  genericPlans?: boolean;
  /** PGlite only: start from a dumped data folder (tests start from an already migrated copy). */
  pgliteSnapshot?: Blob;
  /** Tests only: hears every statement sent (round-trip snapshots); the service never sets it. */
  onStatement?: StatementListener;
}

/** Direct SQL on the driver (no ORM layer) for the hot paths; identical PostgreSQL SQL on both databases. */
export interface Sql {
  /**
   * `name` makes it a named prepared statement on pg (parsed and planned once per connection; the
   * same name must always carry the same text). PGlite has none and ignores it.
   */
  query<T = Record<string, unknown>>(text: string, params?: unknown[], name?: string): Promise<T[]>;
}

export interface Database {
  readonly kind: 'postgres' | 'pglite';
  readonly prisma: PrismaClient;
  /** The hot paths (token lookup, the write statement) skip the ORM's per-query overhead. */
  readonly sql: Sql;
  /** Runs `work` in one transaction on the driver: committed when it resolves, rolled back when it throws. */
  sqlTransaction<T>(work: (sql: Sql) => Promise<T>): Promise<T>;
  /**
   * The PostgreSQL pools by name (null for PGlite): `queries` (Prisma and unnamed statements) and
   * `named` (the named statements, planned once per connection) — for metrics and accounting.
   */
  readonly pools: Readonly<Record<PoolName, pg.Pool>> | null;
  /** The embedded database (null for PostgreSQL). */
  readonly pglite: PGlite | null;
  migrate(): Promise<string[]>;
  /** Throws when the database does not answer. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export async function openDatabase(config: DatabaseConfig): Promise<Database> {
  if (config.databaseUrl) {
    const pool = new pg.Pool({ connectionString: config.databaseUrl, max: config.poolSize ?? 20 });
    const prepared = preparedStatementPool(
      config.databaseUrl,
      config.poolSize ?? 20,
      config.genericPlans ?? true,
    );
    survivesLostConnections(pool);
    const adapter = new PrismaPg(pool);
    return makeDatabase('postgres', adapter, [pool, prepared], null, config.onStatement, async () => {
      await Promise.all([pool.end(), prepared.pool.end()]);
    });
  }
  if (!config.dataDir.startsWith('memory://')) await mkdir(config.dataDir, { recursive: true });
  const pglite = await PGlite.create(
    config.dataDir,
    config.pgliteSnapshot ? { loadDataDir: config.pgliteSnapshot } : {},
  );
  const adapter = new PrismaPGlite(pglite);
  return makeDatabase('pglite', adapter, null, pglite, config.onStatement, async () => {
    await pglite.close();
  });
}

/**
 * A connection that loses its server must not crash the process: an idle one reports to the pool
 * (`error`), a checked-out one to its client — and pg-pool listens there only inside its own
 * `pool.query`, not for a client taken with `pool.connect()` (a transaction, the named statements),
 * where an unheard `error` event would be thrown. The query in flight fails either way and its
 * client is released with the error (not reused).
 */
function survivesLostConnections(pool: pg.Pool): void {
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
}

/**
 * The pool of the named statements (`Sql.query` with a name): each of its connections plans a named
 * statement ONCE, as a generic plan (`plan_cache_mode = force_generic_plan`, set when the connection
 * first serves). PostgreSQL's own choice re-plans such a statement with its values on every
 * execution whenever the generic plan's estimate is the higher — a browse page's statement always,
 * ≈ 0.5 ms of planning on a ≈ 1 ms page. The setting also applies to unnamed statements, whose plans
 * should follow their values (Prisma's, the trading context's, a search's), so those keep their own pool.
 */
function preparedStatementPool(connectionString: string, max: number, genericPlans: boolean) {
  const pool = new pg.Pool({ connectionString, max });
  survivesLostConnections(pool);
  const generic = new WeakSet<pg.PoolClient>();
  return {
    pool,
    async query(config: pg.QueryConfig): Promise<pg.QueryResult> {
      const client = await pool.connect();
      try {
        if (genericPlans && !generic.has(client)) {
          // A server that refuses the setting only costs speed; a dead connection fails the query below.
          await client.query('SET plan_cache_mode = force_generic_plan').catch(() => {});
          generic.add(client);
        }
        const result = await client.query(config);
        client.release();
        return result;
      } catch (error) {
        // As pg's pool.query does: a connection that failed a query is not reused.
        client.release(error as Error);
        throw error;
      }
    },
  };
}

type PreparedStatementPool = ReturnType<typeof preparedStatementPool>;

function makeDatabase(
  kind: Database['kind'],
  adapter: SqlMigrationAwareDriverAdapterFactory,
  pools: [pg.Pool, PreparedStatementPool] | null,
  pglite: PGlite | null,
  onStatement: StatementListener | undefined,
  closeDriver: () => Promise<void>,
): Database {
  const prisma = new PrismaClient({ adapter: onStatement ? observePrisma(adapter, onStatement) : adapter });
  const { sql, sqlTransaction } = pools ? pgSql(...pools, onStatement) : pgliteSql(pglite!, onStatement);
  let closed = false;
  return {
    kind,
    prisma,
    sql,
    sqlTransaction,
    pools: pools && { queries: pools[0], named: pools[1].pool },
    pglite,
    migrate: () => applyMigrations(migrationAdapter(kind, adapter, pools?.[0] ?? null)),
    async ping() {
      await prisma.$queryRaw`SELECT 1`;
    },
    async close() {
      if (closed) return;
      closed = true;
      await prisma.$disconnect();
      await closeDriver();
    },
  };
}

/** The schema engine disposes its adapter when done, so PostgreSQL gets a separate one that must not end the shared pool. */
function migrationAdapter(
  kind: Database['kind'],
  adapter: SqlMigrationAwareDriverAdapterFactory,
  pool: pg.Pool | null,
): SqlMigrationAwareDriverAdapterFactory {
  if (kind === 'postgres' && pool) return new PrismaPg(pool);
  return adapter;
}

type DirectSql = Pick<Database, 'sql' | 'sqlTransaction'>;

const observedBy = (onStatement: StatementListener | undefined) => (sql: Sql) =>
  onStatement ? observeSql(sql, onStatement) : sql;

function pgSql(
  pool: pg.Pool,
  prepared: PreparedStatementPool,
  onStatement: StatementListener | undefined,
): DirectSql {
  const observed = observedBy(onStatement);
  return {
    sql: observed({
      query: async <T>(text: string, params: unknown[] = [], name?: string) =>
        (await (name ? prepared.query({ name, text, values: params }) : pool.query(text, params)))
          .rows as T[],
    }),
    async sqlTransaction<T>(work: (sql: Sql) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      const direct = observed({
        query: async <R>(text: string, params: unknown[] = []) =>
          (await client.query(text, params)).rows as R[],
      });
      try {
        await direct.query('BEGIN');
        const result = await work(direct);
        await direct.query('COMMIT');
        return result;
      } catch (error) {
        await direct.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
  };
}

/**
 * PGlite's own timestamp parsers read years below 100 as 19xx/20xx (`0099-12-31` ⇒ 1999); pg's
 * parsers (postgres-date) read every year PostgreSQL stores, so both drivers answer the same instant (W10).
 */
const PGLITE_PARSERS = {
  1114: pg.types.getTypeParser(1114, 'text'),
  1184: pg.types.getTypeParser(1184, 'text'),
};

function pgliteSql(pglite: PGlite, onStatement: StatementListener | undefined): DirectSql {
  const observed = observedBy(onStatement);
  // PGlite sends BEGIN and COMMIT/ROLLBACK itself; an observer hears them as on pg's path.
  const boundary = (text: 'BEGIN' | 'COMMIT' | 'ROLLBACK') => onStatement?.({ via: 'sql', text });
  return {
    sql: observed({
      query: async <T>(text: string, params: unknown[] = []) =>
        (await pglite.query<T>(text, params, { parsers: PGLITE_PARSERS })).rows,
    }),
    async sqlTransaction<T>(work: (sql: Sql) => Promise<T>): Promise<T> {
      boundary('BEGIN');
      let committed = false;
      try {
        const result = await pglite.transaction((tx) =>
          work(
            observed({
              query: async <R>(text: string, params: unknown[] = []) =>
                (await tx.query<R>(text, params, { parsers: PGLITE_PARSERS })).rows,
            }),
          ),
        );
        committed = true;
        return result;
      } finally {
        boundary(committed ? 'COMMIT' : 'ROLLBACK');
      }
    },
  };
}

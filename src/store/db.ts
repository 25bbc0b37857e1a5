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

export interface DatabaseConfig {
  /** `postgres://…` ⇒ PostgreSQL; undefined ⇒ embedded PGlite. */
  databaseUrl?: string;
  /** PGlite folder; `memory://` keeps it in memory (tests). */
  dataDir: string;
  /** Pool size for PostgreSQL. */
  poolSize?: number;
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
  /** The PostgreSQL pool (null for PGlite), for LISTEN/NOTIFY and the raw-SQL baselines. */
  readonly pool: pg.Pool | null;
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
    // An idle client that loses its server must not crash the process.
    pool.on('error', () => {});
    const adapter = new PrismaPg(pool);
    return makeDatabase('postgres', adapter, pool, null, config.onStatement, async () => {
      await pool.end();
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

function makeDatabase(
  kind: Database['kind'],
  adapter: SqlMigrationAwareDriverAdapterFactory,
  pool: pg.Pool | null,
  pglite: PGlite | null,
  onStatement: StatementListener | undefined,
  closeDriver: () => Promise<void>,
): Database {
  const prisma = new PrismaClient({ adapter: onStatement ? observePrisma(adapter, onStatement) : adapter });
  const { sql, sqlTransaction } = pool ? pgSql(pool, onStatement) : pgliteSql(pglite!, onStatement);
  let closed = false;
  return {
    kind,
    prisma,
    sql,
    sqlTransaction,
    pool,
    pglite,
    migrate: () => applyMigrations(migrationAdapter(kind, adapter, pool)),
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

function pgSql(pool: pg.Pool, onStatement: StatementListener | undefined): DirectSql {
  const observed = observedBy(onStatement);
  return {
    sql: observed({
      query: async <T>(text: string, params: unknown[] = [], name?: string) =>
        (await (name ? pool.query({ name, text, values: params }) : pool.query(text, params))).rows as T[],
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

import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type Database, type DatabaseConfig } from '../../src/store/db.js';
import { inject } from 'vitest';
import { lendPglite } from './pglite-pool.js';
import { TEST_POOL_SIZE, testDatabaseUrl, withDatabaseName } from './env.js';

/**
 * S7's bound for a test's database unless the test sets its own: the statement bound is proven by
 * the tests that set it, and a loaded CI machine must not turn an ordinary test's read into a
 * QUERY_TIMEOUT.
 */
const TEST_STATEMENT_TIMEOUT_MS = 30_000;

/** A fresh, migrated, empty database for one test file (PGlite in memory, or a new PostgreSQL database). */
export async function createTestDatabase(
  options: Pick<
    DatabaseConfig,
    'onStatement' | 'beforeStatement' | 'statementTimeoutMs' | 'writeForm' | 'poolSize'
  > & {
    /** D3: `plain` whatever the run's layout (TEST_DATABASE_LAYOUT): plan shapes, index names. */
    layout?: 'plain';
  } = {},
): Promise<Database & { url?: string }> {
  if (testDatabaseUrl) {
    const name = `memory_test_${randomUUID().replace(/-/g, '')}`;
    const template =
      options.layout === 'plain' ? inject('postgresPlainTemplate') : inject('postgresTemplate');
    const admin = new pg.Client({ connectionString: withDatabaseName(testDatabaseUrl, 'postgres') });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
    await admin.end();
    const url = withDatabaseName(testDatabaseUrl, name);
    const db = await openDatabase({
      databaseUrl: url,
      dataDir: '',
      ...options,
      statementTimeoutMs: options.statementTimeoutMs ?? TEST_STATEMENT_TIMEOUT_MS,
      poolSize: options.poolSize ?? TEST_POOL_SIZE,
    });
    const closeConnections = db.close.bind(db);
    return Object.assign(db, {
      url,
      async close() {
        await closeConnections();
        const dropper = new pg.Client({ connectionString: withDatabaseName(testDatabaseUrl!, 'postgres') });
        await dropper.connect();
        await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await dropper.end();
      },
    });
  }
  return createEmbeddedTestDatabase(options);
}

/**
 * A fresh, migrated, empty PGlite in memory, whatever database kind the run tests: for tests whose
 * outcome the kind cannot change (the page in a browser), so they run once (test/support/projects.ts).
 * It is the worker's, lent to this file until close() (./pglite-pool.ts).
 */
export async function createEmbeddedTestDatabase(
  options: Pick<DatabaseConfig, 'onStatement' | 'beforeStatement' | 'statementTimeoutMs' | 'writeForm'> = {},
): Promise<Database> {
  const lease = await lendPglite(inject('pgliteSnapshot'));
  const db = await openDatabase({ dataDir: 'memory://', pglite: lease.pglite, ...options });
  const closeConnections = db.close.bind(db);
  return Object.assign(db, {
    async close() {
      await closeConnections();
      await lease.giveBack();
    },
  });
}

/** Set to run the suite against PostgreSQL (CI runs it both ways). */
export const testDatabaseUrl = process.env.TEST_DATABASE_URL || undefined;

/**
 * D3: `partitioned` gives the PostgreSQL run's databases the layout of test/support/partitioned.ts
 * (every agent-owned table hash-partitioned by agent id), except where a test asks for the plain
 * one (plan shapes and index names are the plain layout's).
 */
export const testDatabaseLayout: 'plain' | 'partitioned' =
  process.env.TEST_DATABASE_LAYOUT === 'partitioned' ? 'partitioned' : 'plain';

export function withDatabaseName(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/**
 * DATABASE_POOL_SIZE of the tests' services on a shared PostgreSQL server: 22 connections each at
 * most instead of production's 54. Three test files at once, each with a harness and a few service
 * processes, once took all 100 of the machine server's `max_connections` ("sorry, too many clients
 * already": a write answered INTERNAL_SERVER_ERROR). A test of the pools' own capacity (S8's lane)
 * asks for production's size.
 */
export const TEST_POOL_SIZE = 8;

/** Names the folder of the test run's transpiled service (./service-build.ts) to its workers' processes. */
export const SERVICE_BUILD_ENV = 'TEST_SERVICE_BUILD';

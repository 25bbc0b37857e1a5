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

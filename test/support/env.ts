import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** Set to run the suite against PostgreSQL (CI runs it both ways). */
export const testDatabaseUrl = process.env.TEST_DATABASE_URL || undefined;
export const templateName = 'memory_test_template';
/** One migrated PGlite snapshot per checkout (written by global-setup, read by every test file). */
export const snapshotPath = pathToFileURL(
  path.join(
    os.tmpdir(),
    `memory-service-test-${createHash('sha256').update(process.cwd()).digest('hex').slice(0, 12)}`,
    'migrated.tar',
  ),
);

export function withDatabaseName(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

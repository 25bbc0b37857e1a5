// The order test files start in (test/support/sequencer.ts): the load tests' group last, and within
// a group the longest file first whatever its project, so the slow `once` files (process kills, the
// executed README, the browser suites) no longer form the run's tail.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { durationKey, longestFirst, readDurations } from '../support/sequencer.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

interface File {
  key: string;
  group: number;
}
const order = (files: File[], durations: Record<string, number>) =>
  longestFirst(
    files,
    (file) => file.group,
    (file) => file.key,
    durations,
  ).map((file) => file.key);

describe('test order', () => {
  it('the longest file starts first, across projects; a group runs after the groups before it', () => {
    const files: File[] = [
      { key: 'db:test/api/a.test.ts', group: 0 },
      { key: 'load:test/load/l.test.ts', group: 1 },
      { key: 'once:test/e2e/slow.test.ts', group: 0 },
      { key: 'db-postgres:test/api/a.test.ts', group: 0 },
    ];
    const durations = {
      'db:test/api/a.test.ts': 20,
      'db-postgres:test/api/a.test.ts': 15,
      'once:test/e2e/slow.test.ts': 120,
      'load:test/load/l.test.ts': 500,
    };
    expect(order(files, durations)).toEqual([
      'once:test/e2e/slow.test.ts',
      'db:test/api/a.test.ts',
      'db-postgres:test/api/a.test.ts',
      'load:test/load/l.test.ts',
    ]);
  });

  it('a file without a recorded duration starts first in its group (it may be the slowest)', () => {
    const files: File[] = [
      { key: 'db:test/api/known.test.ts', group: 0 },
      { key: 'once:test/unit/new.test.ts', group: 0 },
    ];
    expect(order(files, { 'db:test/api/known.test.ts': 90 })).toEqual([
      'once:test/unit/new.test.ts',
      'db:test/api/known.test.ts',
    ]);
  });

  it('test/durations.json names only test files that exist (else: npm run test:durations after a full run)', () => {
    const keys = Object.keys(readDurations(repoRoot));
    expect(keys.length).toBeGreaterThan(0);
    const missing = keys.filter((key) => !existsSync(path.join(repoRoot, key.slice(key.indexOf(':') + 1))));
    expect(missing).toEqual([]);
    expect(durationKey('db', repoRoot, path.join(repoRoot, 'test/api/a.test.ts'))).toBe(
      'db:test/api/a.test.ts',
    );
  });
});

// D1, D3: the migrated schema obeys Citus' rules for co-located tables distributed by agent id, read
// from the database's own catalog (test/support/distribution.ts lists the reference tables).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/store/db.js';
import { createTestDatabase } from '../support/db.js';
import { distributionProblems } from '../support/distribution.js';

let db: Database;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.close());

describe('D1: keys by agent', () => {
  it('every agent-owned table leads its keys with the agent id and uses FK actions Citus accepts', async () => {
    expect(await distributionProblems(db.sql)).toEqual([]);
  });
});

import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { describe, expect, it } from 'vitest';
import { diffHistoryToSchema, readMigrationList } from '../../src/store/migrate.js';
import { createTestDatabase } from '../support/db.js';

describe('migrations', () => {
  // The WebAssembly schema engine replays every migration into a shadow database: slow on a busy machine.
  it(
    'the migration history produces exactly prisma/schema.prisma (empty diff)',
    { timeout: 180_000 },
    async () => {
      const history = await readMigrationList();
      expect(history.migrationDirectories.length).toBeGreaterThan(0);
      const sql = await diffHistoryToSchema(new PrismaPGlite(new PGlite()));
      expect(sql).toBe('');
    },
  );

  it('a migrated test database accepts the client and re-applying migrations is a no-op', async () => {
    const db = await createTestDatabase();
    try {
      expect(await db.migrate()).toEqual([]);
      await db.ping();
      expect(await db.prisma.agent.count()).toBe(0);
    } finally {
      await db.close();
    }
  });
});

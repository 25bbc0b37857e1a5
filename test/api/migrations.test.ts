import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { describe, expect, it } from 'vitest';
import { diffHistoryToSchema, migrationsDir, readMigrationList } from '../../src/store/migrate.js';
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

  it('L2: the seq migration numbers existing records per agent in (createdAt, id) order and sets lastSeq', async () => {
    const dirs = (await readdir(migrationsDir, { withFileTypes: true }))
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    const seqIndex = dirs.findIndex((name) => name.endsWith('_commit_order_seq'));
    expect(seqIndex).toBeGreaterThan(0);
    const sqlOf = (name: string) => readFile(path.join(migrationsDir, name, 'migration.sql'), 'utf8');
    const pg = new PGlite();
    try {
      for (const name of dirs.slice(0, seqIndex)) await pg.exec(await sqlOf(name));
      const [a, b, c] = ['a', 'b', 'c'].map((x) => `00000000-0000-4000-8000-00000000000${x}`) as [
        string,
        string,
        string,
      ];
      await pg.exec(`INSERT INTO "Agent" (id, name) VALUES ('${a}', 'a'), ('${b}', 'b'), ('${c}', 'c')`);
      const rows: [string, string, string][] = [
        ['10000000-0000-4000-8000-000000000003', a, '2026-01-01T00:00:02Z'],
        ['10000000-0000-4000-8000-000000000002', a, '2026-01-01T00:00:01Z'],
        ['10000000-0000-4000-8000-000000000001', a, '2026-01-01T00:00:01Z'],
        ['10000000-0000-4000-8000-000000000004', b, '2025-01-01T00:00:00Z'],
      ];
      for (const [id, agentId, createdAt] of rows) {
        await pg.query(
          `INSERT INTO "Memory" (id, "agentId", type, scope, content, metadata, "createdAt")
           VALUES ($1, $2, 'note', 'AGENT', 'x', '{}', $3)`,
          [id, agentId, createdAt],
        );
      }
      await pg.exec(await sqlOf(dirs[seqIndex]!));
      const seqs = await pg.query<{ id: string; seq: string }>(
        'SELECT id, seq::text AS seq FROM "Memory" ORDER BY "agentId", seq',
      );
      expect(seqs.rows.map((r) => [r.id.slice(-1), r.seq])).toEqual([
        ['1', '1'],
        ['2', '2'],
        ['3', '3'],
        ['4', '1'],
      ]);
      const last = await pg.query<{ name: string; last: string }>(
        'SELECT name, "lastSeq"::text AS last FROM "Agent" ORDER BY name',
      );
      expect(last.rows).toEqual([
        { name: 'a', last: '3' },
        { name: 'b', last: '1' },
        { name: 'c', last: '0' },
      ]);
    } finally {
      await pg.close();
    }
  });
});

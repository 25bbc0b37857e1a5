import { randomUUID } from 'node:crypto';
import { cp, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import {
  applyMigrations,
  diffHistoryToSchema,
  migrationsDir,
  readMigrationList,
} from '../../src/store/migrate.js';
import { createTestDatabase } from '../support/db.js';
import { testDatabaseUrl, withDatabaseName } from '../support/env.js';

/** An empty store of the kind under test, with the service migrator's adapter and plain SQL. */
async function emptyStore() {
  if (!testDatabaseUrl) {
    const pglite = new PGlite();
    return {
      adapter: new PrismaPGlite(pglite),
      query: async <T>(text: string, params: unknown[] = []) => (await pglite.query<T>(text, params)).rows,
      close: () => pglite.close(),
    };
  }
  const name = `memory_test_${randomUUID().replace(/-/g, '')}`;
  const admin = new pg.Client({ connectionString: withDatabaseName(testDatabaseUrl, 'postgres') });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const pool = new pg.Pool({ connectionString: withDatabaseName(testDatabaseUrl, name), max: 2 });
  return {
    adapter: new PrismaPg(pool),
    query: async <T>(text: string, params: unknown[] = []) => (await pool.query(text, params)).rows as T[],
    close: async () => {
      await pool.end();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

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

  it(
    'B11: the stored search document migration converts an existing store in place, through the service migrator',
    { timeout: 180_000 },
    async () => {
      const dirs = (await readMigrationList()).migrationDirectories.map((entry) => entry.path);
      const stored = dirs.findIndex((name) => name.endsWith('_stored_search_document'));
      expect(stored).toBeGreaterThan(0);
      // The history as it was before: its first migrations in a folder of their own.
      const earlier = await mkdtemp(path.join(os.tmpdir(), 'memory-migrations-'));
      const store = await emptyStore();
      try {
        for (const name of dirs.slice(0, stored)) {
          await cp(path.join(migrationsDir, name), path.join(earlier, name), { recursive: true });
        }
        expect(await applyMigrations(store.adapter, earlier)).toEqual(dirs.slice(0, stored));
        const agent = '00000000-0000-4000-8000-00000000000a';
        await store.query(`INSERT INTO "Agent" (id, name) VALUES ($1, 'before')`, [agent]);
        // Metadata as the search reads it (W10): JSON text with escapes PostgreSQL text cannot hold.
        const records: [string, string, string][] = [
          ['quokka sighting near the range', '{"note": "bearish retest"}', 'a'],
          ['gem notes', '{"note": "zircon \\u0000 beside", "lone": "quartz \\ud800 half"}', 'b'],
          ['nothing to see', '{"level": 71000}', 'c'],
        ];
        for (const [i, [content, metadata, suffix]] of records.entries()) {
          await store.query(
            `INSERT INTO "Memory" (id, "agentId", type, scope, content, metadata, "createdAt", seq)
             VALUES ($1, $2, 'note', 'AGENT', $3, $4::json, now(), $5)`,
            [`10000000-0000-4000-8000-00000000000${suffix}`, agent, content, metadata, i + 1],
          );
        }

        expect(await applyMigrations(store.adapter)).toEqual(dirs.slice(stored));
        const found = async (text: string) =>
          (
            await store.query<{ id: string }>(
              `SELECT id FROM "Memory" WHERE "searchDocument" @@ websearch_to_tsquery('english', $1) ORDER BY id`,
              [text],
            )
          ).map((row) => row.id.slice(-1));
        expect(await found('"quokka sighting"')).toEqual(['a']);
        expect(await found('bearish')).toEqual(['a']);
        expect(await found('zircon quartz')).toEqual(['b']);
        expect(await found('71000')).toEqual([]);
        // A converted row holds the very document a row written afterwards gets.
        await store.query(
          `INSERT INTO "Memory" (id, "agentId", type, scope, content, metadata, "createdAt", seq)
           SELECT ('20000000-0000-4000-8000-00000000000' || right(id::text, 1))::uuid, "agentId", type, scope, content,
                  metadata, "createdAt", seq + 10 FROM "Memory"`,
        );
        const pairs = await store.query<{ same: boolean }>(
          `SELECT o."searchDocument"::text = n."searchDocument"::text AS same FROM "Memory" o
             JOIN "Memory" n ON right(n.id::text, 1) = right(o.id::text, 1) AND n.id <> o.id
            WHERE o.id::text LIKE '1%'`,
        );
        expect(pairs).toEqual(records.map(() => ({ same: true })));
        const [column] = await store.query<{ attgenerated: string; attstorage: string }>(
          `SELECT attgenerated, attstorage FROM pg_attribute WHERE attrelid = '"Memory"'::regclass AND attname = 'searchDocument'`,
        );
        expect(column).toEqual({ attgenerated: 's', attstorage: 'm' });
        const [index] = await store.query<{ indexdef: string }>(
          `SELECT indexdef FROM pg_indexes WHERE indexname = 'Memory_search_idx'`,
        );
        expect(index?.indexdef).toMatch(
          /USING gin \("searchDocument"\) WITH \(gin_pending_list_limit='?256'?\)/,
        );
      } finally {
        await store.close();
        await rm(earlier, { recursive: true, force: true });
      }
    },
  );
});

describe('V1: the venue-names migration', () => {
  it(
    'V1: the venue-names migration keeps every existing id and checks new ones',
    { timeout: 180_000 },
    async () => {
      const dirs = (await readMigrationList()).migrationDirectories.map((entry) => entry.path);
      const at = dirs.findIndex((name) => name.endsWith('_venue_instrument_names'));
      expect(at).toBeGreaterThan(0);
      const earlier = await mkdtemp(path.join(os.tmpdir(), 'memory-migrations-'));
      const store = await emptyStore();
      try {
        for (const name of dirs.slice(0, at)) {
          await cp(path.join(migrationsDir, name), path.join(earlier, name), { recursive: true });
        }
        await applyMigrations(store.adapter, earlier);
        const before = ['BTC', 'ETH', 'kPEPE', 'SOL1000', 'A'.repeat(32)];
        for (const [i, id] of before.entries()) {
          await store.query(`INSERT INTO "Instrument" (id, active) VALUES ($1, $2)`, [id, i % 2 === 0]);
        }
        expect(await applyMigrations(store.adapter)).toEqual(dirs.slice(at));
        const rows = await store.query<{ id: string; active: boolean }>(
          'SELECT id, active FROM "Instrument" ORDER BY id COLLATE "C"',
        );
        expect(rows).toEqual([...before].sort().map((id) => ({ id, active: before.indexOf(id) % 2 === 0 })));
        await store.query(`INSERT INTO "Instrument" (id) VALUES ('xyz:TSLA')`);
        await expect(store.query(`INSERT INTO "Instrument" (id) VALUES ('ETH-PERP')`)).rejects.toThrow(
          /Instrument_id_venue_name/,
        );
      } finally {
        await store.close();
        await rm(earlier, { recursive: true });
      }
    },
  );
});

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
import { insertMemory } from '../../src/records/record-write.js';
import { findOperatorByTokenHash, findRunByTokenHash, runStatus } from '../../src/store/tokens.js';
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

describe('D1: the distribution-keys migration', () => {
  /** Every row of every table as JSON text (the columns the migration adds left out), in a stable order. */
  async function contents(store: Awaited<ReturnType<typeof emptyStore>>, tables: readonly string[]) {
    const out: Record<string, string[]> = {};
    for (const table of tables) {
      const rows = await store.query<{ row: string }>(
        `SELECT (to_jsonb(t) - 'agentId' - 'searchDocument')::text AS row FROM "${table}" t ORDER BY 1`,
      );
      out[table] = rows.map((r) => r.row);
    }
    return out;
  }

  it(
    'D1: converts a store written before it in place: every row, id, seq and token reads back, new rows follow',
    { timeout: 180_000 },
    async () => {
      const dirs = (await readMigrationList()).migrationDirectories.map((entry) => entry.path);
      const keys = dirs.findIndex((name) => name.endsWith('_distribution_keys_by_agent'));
      expect(keys).toBeGreaterThan(0);
      const earlier = await mkdtemp(path.join(os.tmpdir(), 'memory-migrations-'));
      const store = await emptyStore();
      try {
        for (const name of dirs.slice(0, keys)) {
          await cp(path.join(migrationsDir, name), path.join(earlier, name), { recursive: true });
        }
        expect(await applyMigrations(store.adapter, earlier)).toEqual(dirs.slice(0, keys));
        const id = (prefix: string, n: number) => `${prefix}0000000-0000-4000-8000-00000000000${n}`;
        const [a, b] = [id('a', 1), id('a', 2)];
        const [pa, pb] = [id('b', 1), id('b', 2)];
        const [ra, rb] = [id('c', 1), id('c', 2)];
        const seed = [
          `INSERT INTO "Agent" (id, name, "lastSeq") VALUES ('${a}', 'alpha', 2), ('${b}', 'beta', 1)`,
          `INSERT INTO "Instrument" (id) VALUES ('BTC'), ('ETH')`,
          `INSERT INTO "AgentInstrument" (id, "agentId", "instrumentId", "selectedAt")
             VALUES ('${id('d', 1)}', '${a}', 'BTC', now()), ('${id('d', 2)}', '${b}', 'ETH', now())`,
          `INSERT INTO "Producer" (id, "agentId", kind, name) VALUES ('${pa}', '${a}', 'ANALYSIS', 'p'), ('${pb}', '${b}', 'TRADING', 'p')`,
          `INSERT INTO "ProducerEnablement" (id, "producerId", enabled, "changedAt")
             VALUES ('${id('e', 1)}', '${pa}', true, now()), ('${id('e', 2)}', '${pb}', true, now()), ('${id('e', 3)}', '${pb}', false, now())`,
          `INSERT INTO "Run" (id, "agentId", "producerId", kind, status, "startedAt", "tokenHash")
             VALUES ('${ra}', '${a}', '${pa}', 'ANALYSIS', 'RUNNING', now(), 'hash-a'), ('${rb}', '${b}', '${pb}', 'TRADING', 'SUCCEEDED', now(), 'hash-b')`,
          `INSERT INTO "Memory" (id, "agentId", type, scope, content, metadata, "sourceRunId", "producerId", "runKind",
                                 "createdAt", "idempotencyKey", seq)
             VALUES ('${id('f', 1)}', '${a}', 'note', 'INSTRUMENTS', 'one', '{"b": 1, "a": 2}', '${ra}', '${pa}', 'ANALYSIS', '2026-01-01T00:00:00Z', 'k1', 1),
                    ('${id('f', 2)}', '${a}', 'note', 'AGENT', 'two', '{}', '${ra}', '${pa}', 'ANALYSIS', '2026-01-01T00:00:01Z', null, 2),
                    ('${id('f', 3)}', '${b}', 'trading_decision', 'INSTRUMENTS', 'three', '{}', '${rb}', '${pb}', 'TRADING', '2026-01-01T00:00:02Z', null, 1)`,
          `INSERT INTO "MemoryTarget" ("memoryId", position, "instrumentId", "agentId", "producerId", "runKind", type, "isCorrection", "createdAt")
             VALUES ('${id('f', 1)}', 0, 'BTC', '${a}', '${pa}', 'ANALYSIS', 'note', false, '2026-01-01T00:00:00Z'),
                    ('${id('f', 3)}', 0, 'ETH', '${b}', '${pb}', 'TRADING', 'trading_decision', false, '2026-01-01T00:00:02Z')`,
          `INSERT INTO "MemoryLink" ("memoryId", position, "targetMemoryId", "linkType")
             VALUES ('${id('f', 2)}', 0, '${id('f', 1)}', 'cites'), ('${id('f', 2)}', 1, '${id('f', 1)}', 'supports')`,
          `INSERT INTO "OperatorToken" (id, "agentId", label, "tokenHash") VALUES ('${id('9', 1)}', '${b}', 'desk', 'hash-op')`,
        ];
        for (const statement of seed) await store.query(statement);
        const tables = [
          'Agent',
          'Instrument',
          'AgentInstrument',
          'Producer',
          'ProducerEnablement',
          'Run',
          'Memory',
          'MemoryTarget',
          'MemoryLink',
          'OperatorToken',
        ] as const;
        const before = await contents(store, tables);

        expect(await applyMigrations(store.adapter)).toEqual(dirs.slice(keys));
        expect(await contents(store, tables)).toEqual(before);
        // The added agent ids are the parents' and the names moved to the reference table.
        expect(
          await store.query(`SELECT "memoryId", position, "agentId" FROM "MemoryLink" ORDER BY position`),
        ).toEqual([
          { memoryId: id('f', 2), position: 0, agentId: a },
          { memoryId: id('f', 2), position: 1, agentId: a },
        ]);
        expect(await store.query(`SELECT id, "agentId" FROM "ProducerEnablement" ORDER BY id`)).toEqual([
          { id: id('e', 1), agentId: a },
          { id: id('e', 2), agentId: b },
          { id: id('e', 3), agentId: b },
        ]);
        expect(await store.query(`SELECT name, "agentId" FROM "AgentName" ORDER BY name`)).toEqual([
          { name: 'alpha', agentId: a },
          { name: 'beta', agentId: b },
        ]);
        // Old token hashes still find their run and operator token, and the service's lookups work.
        expect(await findRunByTokenHash(store, 'hash-a', null)).toMatchObject({
          id: ra,
          agentId: a,
          producerId: pa,
        });
        expect(await findOperatorByTokenHash(store, 'hash-op', null)).toMatchObject({
          agentId: b,
          revokedAt: null,
        });
        expect(await runStatus(store, b, rb)).toBe('SUCCEEDED');
        // A name stays unique across agents, now through AgentName.
        await expect(
          store.query(`INSERT INTO "AgentName" (name, "agentId") VALUES ('alpha', '${b}')`),
        ).rejects.toThrow();
        // The next record of an agent takes the seq after its last one and may link its older records.
        const seq = await insertMemory(
          store,
          {
            id: id('f', 4),
            agentId: a,
            type: 'note',
            scope: 'INSTRUMENTS',
            content: 'four',
            metadata: {},
            timeframe: null,
            sourceRunId: ra,
            producerId: pa,
            runKind: 'ANALYSIS',
            createdAt: new Date('2026-01-01T00:00:03Z'),
            expiresAt: null,
            expiryPolicy: null,
            idempotencyKey: 'k1-other',
            requestHash: null,
            instruments: ['BTC'],
            links: [{ targetMemoryId: id('f', 1), linkType: 'cites' }],
          },
          'write',
          'statement',
        );
        expect(seq).toBe(3);
        // A link to another agent's record is refused by the composite foreign key itself (W4).
        await expect(
          store.query(
            `INSERT INTO "MemoryLink" ("agentId", "memoryId", position, "targetMemoryId", "linkType")
             VALUES ('${a}', '${id('f', 4)}', 1, '${id('f', 3)}', 'cites')`,
          ),
        ).rejects.toThrow();
      } finally {
        await store.close();
        await rm(earlier, { recursive: true, force: true });
      }
    },
  );
});

// The embedded databases a worker lends its test files one after another (test/support/pglite-pool.ts):
// a file must get one exactly as fresh as a new one, and never the previous file's data, session or
// schema changes.
import { afterAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import type { PGlite } from '@electric-sql/pglite';
import { fingerprint, lendPglite, pgliteLeaseCounts, type PgliteLease } from '../support/pglite-pool.js';

const snapshot = inject('pgliteSnapshot');
const open: PgliteLease[] = [];
afterAll(async () => {
  await Promise.all(open.map((lease) => lease.giveBack()));
});

async function lend(): Promise<PgliteLease> {
  const lease = await lendPglite(snapshot);
  open.push(lease);
  return lease;
}

const count = async (pglite: PGlite, table: string) =>
  (await pglite.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]!.n;

/** Rows, statistics and session state, as a file leaves them. */
async function fill(pglite: PGlite): Promise<void> {
  await pglite.exec(`
    INSERT INTO "Agent" (id, name) VALUES ('00000000-0000-4000-8000-000000000001', 'left behind');
    INSERT INTO "OperatorToken" (id, "agentId", "tokenHash")
      VALUES ('00000000-0000-4000-8000-000000000002', '00000000-0000-4000-8000-000000000001', 'h');
    ANALYZE "Agent";
    SET TimeZone = 'Asia/Tokyo';
    PREPARE left_behind AS SELECT 1;`);
}

describe('Test PGlite leases: a given-back database is lent again only as fresh as a new one', () => {
  it('empties its tables and planner statistics, resets its session, and keeps the migrations', async () => {
    const first = await lend();
    const migrations = await count(first.pglite, '_prisma_migrations');
    await fill(first.pglite);
    const before = pgliteLeaseCounts();
    await first.giveBack();
    expect(pgliteLeaseCounts().reused).toBe(before.reused + 1);

    const second = await lend();
    expect(pgliteLeaseCounts().opened).toBe(before.opened);
    expect(await count(second.pglite, '"Agent"')).toBe(0);
    expect(await count(second.pglite, '"OperatorToken"')).toBe(0);
    expect(await count(second.pglite, '_prisma_migrations')).toBe(migrations);
    const stats = await second.pglite.query(
      `SELECT 1 FROM pg_statistic WHERE starelid = '"Agent"'::regclass`,
    );
    expect(stats.rows).toEqual([]);
    const zone = await second.pglite.query<{ TimeZone: string }>('SHOW TimeZone');
    expect(zone.rows[0]!.TimeZone).toBe('UTC');
    await expect(second.pglite.exec('EXECUTE left_behind')).rejects.toThrow(/left_behind/);
  });

  it('refuses every call of the file that gave it back', async () => {
    const lease = await lend();
    await lease.giveBack();
    await expect(async () => lease.pglite.query('SELECT 1')).rejects.toThrow(/gave it back/);
  });

  it('never lends again a database whose schema its file changed', async () => {
    await expectDropped((pglite) => pglite.exec('CREATE TABLE left_over (id int)'));
    const next = await lend();
    const found = await next.pglite.query(`SELECT 1 FROM pg_class WHERE relname = 'left_over'`);
    expect(found.rows).toEqual([]);
  });

  it('never lends again a database its file left inside a transaction', async () => {
    await expectDropped((pglite) => pglite.exec('BEGIN'));
  });

  // What a file can change in place, without a new relation or column: each must read as a change.
  // Each is made in a transaction on one database and rolled back (a database the pool drops costs a
  // new one); that a changed fingerprint drops the database, the cases above prove.
  const enumName = async (pglite: PGlite) =>
    (
      await pglite.query<{ name: string }>(
        `SELECT typname AS name FROM pg_type WHERE typtype = 'e' AND typnamespace = 'public'::regnamespace LIMIT 1`,
      )
    ).rows[0]!.name;
  const changes: [string, (pglite: PGlite) => Promise<unknown>][] = [
    ['a rule', (pglite) => pglite.exec(`CREATE RULE quiet AS ON INSERT TO "Agent" DO INSTEAD NOTHING`)],
    [
      "a column's default",
      (pglite) => pglite.exec(`ALTER TABLE "Agent" ALTER COLUMN "createdAt" SET DEFAULT '2000-01-01'`),
    ],
    [
      'an enum value',
      async (pglite) => pglite.exec(`ALTER TYPE "${await enumName(pglite)}" ADD VALUE 'LEFT'`),
    ],
    ['a large object', (pglite) => pglite.query(`SELECT lo_from_bytea(4242, 'left behind')`)],
    ['row-level security', (pglite) => pglite.exec(`ALTER TABLE "Agent" ENABLE ROW LEVEL SECURITY`)],
    ['a grant', (pglite) => pglite.exec(`GRANT SELECT ON "Agent" TO PUBLIC`)],
    ['a comment', (pglite) => pglite.exec(`COMMENT ON TABLE "Agent" IS 'left behind'`)],
  ];
  it.each(changes)('reads a database whose file added %s as changed', async (_, change) => {
    const lease = await lend();
    const { pglite } = lease;
    const clean = await fingerprint(pglite);
    await pglite.exec('BEGIN');
    try {
      await change(pglite);
      expect(await fingerprint(pglite)).not.toBe(clean);
    } finally {
      await pglite.exec('ROLLBACK');
    }
    expect(await fingerprint(pglite)).toBe(clean);
    await lease.giveBack(); // unchanged, so the next case gets it
  });

  it('never lends again a database whose file ran ALTER SYSTEM (outside any transaction)', async () => {
    await expectDropped((pglite) => pglite.exec(`ALTER SYSTEM SET work_mem = '64MB'`));
  });

  it('lends again one whose file ran plpgsql (a DO block), which changes no object', async () => {
    const lease = await lend();
    await lease.pglite.exec(`DO $$ BEGIN PERFORM 1; END $$`);
    const before = pgliteLeaseCounts();
    await lease.giveBack();
    expect(pgliteLeaseCounts().reused).toBe(before.reused + 1);
  });

  it('drops the JavaScript side a file left: its listeners and its type parsers', async () => {
    const first = await lend();
    const heard: string[] = [];
    await first.pglite.listen('left_channel', (payload) => heard.push(`listen ${payload}`));
    first.pglite.onNotification((_, payload) => heard.push(`onNotification ${payload}`));
    first.pglite.parsers[23] = () => 'left behind';
    const before = pgliteLeaseCounts();
    await first.giveBack();
    expect(pgliteLeaseCounts().reused).toBe(before.reused + 1);

    const second = await lend();
    const own: string[] = [];
    await second.pglite.listen('left_channel', (payload) => own.push(payload));
    await second.pglite.exec(`NOTIFY left_channel, 'for the second file'`);
    await new Promise((resolve) => setTimeout(resolve, 50)); // PGlite calls listeners in microtasks
    expect(own).toEqual(['for the second file']);
    expect(heard).toEqual([]);
    expect((await second.pglite.query<{ n: number }>('SELECT 42::int4 AS n')).rows).toEqual([{ n: 42 }]);
  });

  it('gives back once: a second giveBack waits for the same reset', async () => {
    const lease = await lend();
    const before = pgliteLeaseCounts();
    const [once, twice] = [lease.giveBack(), lease.giveBack()];
    await twice;
    expect(pgliteLeaseCounts().reused).toBe(before.reused + 1);
    await once;
    expect(pgliteLeaseCounts().reused).toBe(before.reused + 1);
  });
});

/** Lends a database, lets `spoil` change it as a file might, gives it back: the pool must close it. */
async function expectDropped(spoil: (pglite: PGlite) => Promise<unknown>): Promise<void> {
  const lease = await lend();
  await spoil(lease.pglite);
  const before = pgliteLeaseCounts();
  await lease.giveBack();
  expect(pgliteLeaseCounts().dropped).toBe(before.dropped + 1);
}

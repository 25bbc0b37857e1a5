// Named statements are planned once per connection: on PostgreSQL they run on a pool
// whose sessions force generic plans, while Prisma's and the unnamed statements keep PostgreSQL's own
// choice (their plans follow their values: the trading context, a search). Always on a PostgreSQL
// database of its own, in the PGlite run too (PGlite has no prepared statements).
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/store/db.js';
import { createPostgresDatabase } from '../support/processes.js';

let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
let db: Database;

beforeAll(async () => {
  database = await createPostgresDatabase();
  // One connection per pool: every statement below meets the same session as the ones before it.
  db = await openDatabase({ databaseUrl: database.url, dataDir: '', poolSize: 1 });
});

afterAll(async () => {
  await db?.close();
  await database?.drop();
});

describe('prepared statement plans', () => {
  it('a named statement is executed with its generic plan from the first time', async () => {
    for (const n of [1, 2, 3]) {
      expect(await db.sql.query<{ n: number }>('SELECT $1::int AS n', [n], 'plans_probe')).toEqual([{ n }]);
    }
    // PostgreSQL's own choice would have made these three custom plans (it tries five before a generic one).
    const [plans] = await db.sql.query<{ generic: number; custom: number }>(
      `SELECT generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements WHERE name = $1`,
      ['plans_probe'],
      'plans_of_probe',
    );
    expect(plans).toEqual({ generic: 3, custom: 0 });
  });

  it('W5: a connection reset during a named statement fails that statement, not the process', async () => {
    // A TCP proxy in front of PostgreSQL whose sockets the test resets (RST), as a network fault would.
    const sockets = new Set<net.Socket>();
    const proxy = net.createServer((client) => {
      const server = net.connect(Number(new URL(database.url).port || 5432), '127.0.0.1');
      for (const socket of [client, server]) {
        sockets.add(socket);
        socket.on('error', () => {});
        socket.on('close', () => sockets.delete(socket));
      }
      client.pipe(server).pipe(client);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const viaProxy = new URL(database.url);
    viaProxy.host = `127.0.0.1:${(proxy.address() as net.AddressInfo).port}`;
    const faulty = await openDatabase({ databaseUrl: viaProxy.toString(), dataDir: '', poolSize: 1 });
    try {
      const sleeping = faulty.sql.query('SELECT pg_sleep(10)', [], 'plans_sleep');
      // Bounded: wait until the statement runs (PostgreSQL sees it active), at most 5 s.
      for (let i = 0; i < 50; i++) {
        const [active] = await db.sql.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(10)' AND state = 'active'`,
        );
        if (active?.n) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      for (const socket of sockets) socket.resetAndDestroy();
      await expect(sleeping).rejects.toThrow();
      // The broken connection is not handed out again: the next statement gets a new one.
      expect(await faulty.sql.query<{ n: number }>('SELECT $1::int AS n', [7], 'plans_probe')).toEqual([
        { n: 7 },
      ]);
    } finally {
      await faulty.close();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it("GENERIC_PLANS=0: named statements get PostgreSQL's own choice (custom plans first)", async () => {
    const own = await openDatabase({
      databaseUrl: database.url,
      dataDir: '',
      poolSize: 1,
      genericPlans: false,
    });
    try {
      for (const n of [1, 2, 3]) await own.sql.query('SELECT $1::int AS n', [n], 'plans_probe');
      const [plans] = await own.sql.query<{ generic: number; custom: number }>(
        `SELECT generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements WHERE name = $1`,
        ['plans_probe'],
        'plans_of_probe',
      );
      expect(plans).toEqual({ generic: 0, custom: 3 });
    } finally {
      await own.close();
    }
  });

  it("unnamed and Prisma's statements keep PostgreSQL's choice (plans that follow their values)", async () => {
    const [named] = await db.sql.query<{ plan_cache_mode: string }>('SHOW plan_cache_mode', [], 'show_plans');
    const [unnamed] = await db.sql.query<{ plan_cache_mode: string }>('SHOW plan_cache_mode');
    const [viaPrisma] =
      await db.prisma.$queryRawUnsafe<{ plan_cache_mode: string }[]>('SHOW plan_cache_mode');
    expect([named?.plan_cache_mode, unnamed?.plan_cache_mode, viaPrisma?.plan_cache_mode]).toEqual([
      'force_generic_plan',
      'auto',
      'auto',
    ]);
  });
});

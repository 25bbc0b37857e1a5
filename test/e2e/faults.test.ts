// Faults with real processes (W5, L2, L3): the service killed mid-burst, its connections terminated,
// its PostgreSQL crashed and restarted, Redis gone between two instances — nothing acknowledged is
// lost, nothing unacknowledged or partial appears, and the service recovers without a restart.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { subscribeWs, wsClient, type LiveSubscription } from '../support/live.js';
import { startOwnPostgres, type OwnPostgres } from '../support/own-postgres.js';
import { startOwnRedis, type OwnRedis } from '../support/own-redis.js';
import { createPostgresDatabase, startServiceProcess, type ServiceProcess } from '../support/processes.js';
import {
  createWriterFixture,
  ORPHANS_SQL,
  statusOf,
  STORED_ROWS_SQL,
  waitUntil,
  writeBurst,
  WriteLedger,
  type StoredRow,
} from '../support/write-ledger.js';

const ADMIN = 'adm_faults_test_token_0123456789';
const cleanups: (() => Promise<unknown>)[] = [];

afterAll(async () => {
  // Every private server, process and folder goes, even when a test failed half-way.
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

async function service(env: Record<string, string>): Promise<ServiceProcess> {
  const started = await startServiceProcess({ ADMIN_TOKEN: ADMIN, DEMO: '0', DATABASE_URL: '', ...env });
  cleanups.push(async () => {
    if (started.child.exitCode === null && started.child.signalCode === null) await started.stop('SIGKILL');
  });
  return started;
}

async function postgresRows(url: string, agentId: string): Promise<{ rows: StoredRow[]; orphans: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<StoredRow>(STORED_ROWS_SQL, [agentId]);
    const { rows: orphans } = await client.query<{ n: string }>(ORPHANS_SQL);
    return { rows, orphans: Number(orphans[0]!.n) };
  } finally {
    await client.end();
  }
}

/** Opens the data folder itself, as the next start would (only while no service holds it). */
async function pgliteRows(dataDir: string, agentId: string): Promise<{ rows: StoredRow[]; orphans: number }> {
  const db = await PGlite.create(dataDir);
  try {
    const { rows } = await db.query<StoredRow>(STORED_ROWS_SQL, [agentId]);
    const { rows: orphans } = await db.query<{ n: number }>(ORPHANS_SQL);
    return { rows, orphans: Number(orphans[0]!.n) };
  } finally {
    await db.close();
  }
}

/** Starts the folder from the run's migrated snapshot when there is one (PGlite's initdb is slow on 2 cores). */
async function seedDataDir(dataDir: string): Promise<void> {
  const snapshot = inject('pgliteSnapshot');
  if (!snapshot) return;
  const db = await PGlite.create(dataDir, { loadDataDir: new Blob([await readFile(snapshot)]) });
  await db.close();
}

/** Burst until `enough` writes were acknowledged, then `fault()`, then stop the burst. */
async function burstThenFault(
  ledger: WriteLedger,
  base: () => string,
  enough: number,
  fault: () => Promise<void>,
): Promise<void> {
  let stop = false;
  const burst = writeBurst(ledger, { base, concurrency: 4, maxWrites: 3000, stop: () => stop });
  try {
    await waitUntil(`${enough} acknowledged writes`, async () => ledger.acknowledged.size >= enough, 20_000);
    await fault();
  } finally {
    stop = true;
    await burst;
  }
}

describe('the service killed during a write burst (W5)', { timeout: 90_000 }, () => {
  it('W5: SIGKILL during a write burst on PostgreSQL loses no acknowledged write and leaves no partial row', async () => {
    const database = await createPostgresDatabase();
    cleanups.push(() => database.drop());
    let svc = await service({ DATABASE_URL: database.url });
    const fixture = await createWriterFixture(svc.url, ADMIN, 'sigkill-pg');
    const ledger = new WriteLedger(fixture, 'sigkill-pg');

    await burstThenFault(
      ledger,
      () => svc.url,
      60,
      async () => {
        await svc.stop('SIGKILL');
      },
    );
    const killed = await postgresRows(database.url, fixture.agentId);
    expect(ledger.audit(killed.rows, killed.orphans)).toEqual([]);

    // Restarted, it serves and links to what was acknowledged before the kill.
    svc = await service({ DATABASE_URL: database.url });
    for (let i = 0; i < 6; i++)
      expect(await ledger.write(svc.url, i % 2 ? 'graphql' : 'rest')).toBe('acknowledged');
    const after = await postgresRows(database.url, fixture.agentId);
    expect(ledger.audit(after.rows, after.orphans)).toEqual([]);
    await svc.stop();
  });

  it('W5: SIGKILL during a write burst on embedded PGlite (DATA_DIR) loses no acknowledged write and leaves no partial row', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'memory-faults-pglite-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    await seedDataDir(dataDir);
    let svc = await service({ DATA_DIR: dataDir });
    const fixture = await createWriterFixture(svc.url, ADMIN, 'sigkill-pglite');
    const ledger = new WriteLedger(fixture, 'sigkill-pglite');

    await burstThenFault(
      ledger,
      () => svc.url,
      60,
      async () => {
        await svc.stop('SIGKILL');
      },
    );
    const killed = await pgliteRows(dataDir, fixture.agentId);
    expect(ledger.audit(killed.rows, killed.orphans)).toEqual([]);

    // The same folder starts again after the crash and keeps serving.
    svc = await service({ DATA_DIR: dataDir });
    for (let i = 0; i < 6; i++)
      expect(await ledger.write(svc.url, i % 2 ? 'graphql' : 'rest')).toBe('acknowledged');
    const { code } = await svc.stop('SIGTERM');
    expect(code).toBe(0);
    const after = await pgliteRows(dataDir, fixture.agentId);
    expect(ledger.audit(after.rows, after.orphans)).toEqual([]);
  });
});

describe('database connections terminated during a burst (W5)', { timeout: 90_000 }, () => {
  it('W5: pg_terminate_backend during a write burst: in-flight writes fail with the generic error, the service recovers without restart', async () => {
    const database = await createPostgresDatabase();
    cleanups.push(() => database.drop());
    const svc = await service({ DATABASE_URL: database.url });
    const fixture = await createWriterFixture(svc.url, ADMIN, 'terminate');
    const ledger = new WriteLedger(fixture, 'terminate');
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    cleanups.push(() => admin.end());
    const name = new URL(database.url).pathname.slice(1);

    let terminated = 0;
    await burstThenFault(
      ledger,
      () => svc.url,
      30,
      async () => {
        for (let round = 0; round < 5; round++) {
          const { rowCount } = await admin.query(
            'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
            [name],
          );
          terminated += rowCount ?? 0;
          const acknowledged = ledger.acknowledged.size;
          // Recovery: acknowledged writes resume before the next round.
          await waitUntil(
            'writes acknowledged again',
            async () => ledger.acknowledged.size > acknowledged + 5,
            10_000,
          );
        }
      },
    );

    expect(terminated).toBeGreaterThan(0);
    expect(svc.child.exitCode).toBeNull();
    expect(ledger.inDoubt.size).toBe(0); // the service itself never dropped a request
    expect(await statusOf(`${svc.url}/readyz`)).toBe(200);
    const stored = await postgresRows(database.url, fixture.agentId);
    expect(ledger.audit(stored.rows, stored.orphans)).toEqual([]);
  });
});

describe('the PostgreSQL server crashed and started again during a burst (W5)', { timeout: 90_000 }, () => {
  let own: OwnPostgres;

  it('W5: writes fail with the generic error and /readyz is 503 (/healthz 200) while it is down; the service recovers without restart', async () => {
    own = await startOwnPostgres();
    cleanups.push(() => own.remove());
    const svc = await service({ DATABASE_URL: own.url() });
    const fixture = await createWriterFixture(svc.url, ADMIN, 'pg-crash');
    const ledger = new WriteLedger(fixture, 'pg-crash');
    let crashedAt = 0;

    await burstThenFault(
      ledger,
      () => svc.url,
      40,
      async () => {
        await own.stop('immediate');
        crashedAt = Date.now();
        expect(await statusOf(`${svc.url}/readyz`)).toBe(503);
        expect(await statusOf(`${svc.url}/healthz`)).toBe(200);
        // The burst keeps writing into the outage; these two are checked by their exact answers.
        expect(await ledger.write(svc.url, 'graphql')).toBe('internal_error');
        expect(await ledger.write(svc.url, 'rest')).toBe('internal_error');
        await new Promise((resolve) => setTimeout(resolve, 500));

        await own.start();
        await waitUntil(
          '/readyz 200 after the database returned',
          async () => (await statusOf(`${svc.url}/readyz`)) === 200,
        );
        const acknowledged = ledger.acknowledged.size;
        await waitUntil(
          'writes acknowledged again',
          async () => ledger.acknowledged.size > acknowledged + 10,
        );
      },
    );

    expect(svc.child.exitCode).toBeNull();
    expect(ledger.inDoubt.size).toBe(0);
    expect(ledger.internalErrors.size).toBeGreaterThanOrEqual(2);
    // Only writes in flight at the crash may have committed behind a lost answer.
    const stored = await postgresRows(own.url(), fixture.agentId);
    expect(ledger.audit(stored.rows, stored.orphans, crashedAt)).toEqual([]);
  });
});

describe('Redis stopped between two instances (L2, L3)', { timeout: 90_000 }, () => {
  it('L3: with Redis down local subscribers are still served; after it returns cross-instance delivery resumes, connected subscribers catch up, and a resume with the last cursor misses nothing (L2)', async () => {
    const redis: OwnRedis = await startOwnRedis();
    cleanups.push(() => redis.remove());
    const database = await createPostgresDatabase();
    cleanups.push(() => database.drop());
    const env = { DATABASE_URL: database.url, REDIS_URL: redis.url };
    const a = await service(env); // migrates
    const b = await service(env);
    const fixture = await createWriterFixture(a.url, ADMIN, 'redis');
    const ledger = new WriteLedger(fixture, 'redis');
    const clients = [wsClient(a.url, fixture.operatorToken), wsClient(b.url, fixture.operatorToken)];
    cleanups.push(async () => clients.map((c) => c.dispose()));
    const subA = subscribeWs(clients[0]!, {});
    const subB = subscribeWs(clients[1]!, {});
    const has = (sub: LiveSubscription, id: string) => sub.edges.some((e) => e.node.id === id);
    /** Writes through `base` and waits (bounded) until `sub` received the record. */
    const writeAndSee = async (base: string, sub: LiveSubscription, ms: number): Promise<boolean> => {
      const before = ledger.acknowledged.size;
      expect(await ledger.write(base, 'graphql')).toBe('acknowledged');
      const id = [...ledger.acknowledged.keys()][before]!;
      const deadline = Date.now() + ms;
      while (!has(sub, id) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      return has(sub, id);
    };

    // Both subscriptions established: a write through A reaches both.
    await waitUntil(
      'both subscriptions live',
      async () => (await writeAndSee(a.url, subB, 300)) && subA.edges.length > 0,
    );
    const lastBefore = subB.edges.at(-1)!;

    await redis.stop();
    for (let i = 0; i < 3; i++) {
      expect(await writeAndSee(a.url, subA, 2000)).toBe(true); // A's own subscriber, Redis down
      expect(await writeAndSee(b.url, subB, 2000)).toBe(true); // B's own subscriber, Redis down
    }
    expect(a.child.exitCode).toBeNull();
    expect(b.child.exitCode).toBeNull();

    await redis.start();
    await waitUntil(
      'cross-instance delivery after Redis returned',
      () => writeAndSee(a.url, subB, 300),
      20_000,
    );

    // B's client resumes from the cursor it held before the outage: every record since, in order, once.
    const written = [...ledger.acknowledged.keys()];
    const expected = written.slice(written.indexOf(lastBefore.node.id) + 1);
    const resumeClient = wsClient(b.url, fixture.operatorToken);
    cleanups.push(async () => resumeClient.dispose());
    const resumed = subscribeWs(resumeClient, { after: lastBefore.cursor });
    await resumed.waitFor(expected.length, 10_000);
    expect(resumed.edges.map((e) => e.node.id)).toEqual(expected);
    // B's subscriber that stayed connected caught up by itself: each record once (B's own live, A's from the database).
    const sinceOutage = (sub: LiveSubscription) =>
      sub.edges.map((e) => e.node.id).slice(sub.edges.findIndex((e) => e.node.id === lastBefore.node.id) + 1);
    const caughtUp = (sub: LiveSubscription) => expected.every((id) => has(sub, id));
    await waitUntil('connected subscribers caught up', async () => caughtUp(subA) && caughtUp(subB), 10_000);
    expect([...sinceOutage(subB)].sort()).toEqual([...expected].sort());
    expect([...sinceOutage(subA)].sort()).toEqual([...expected].sort());
    await Promise.all([subA.stop(), subB.stop(), resumed.stop()]);
    expect(ledger.unexpected).toEqual([]);
  });
});

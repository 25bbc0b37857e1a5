// Migrates once per test run: a PGlite snapshot file, and on PostgreSQL runs a template database
// that each test file clones (CREATE DATABASE … TEMPLATE), so every file starts from an empty, migrated store.
// Names are unique per run, so concurrent runs (a developer and CI on one machine) never collide.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../src/store/db.js';
import { SERVICE_BUILD_ENV, testDatabaseLayout, testDatabaseUrl, withDatabaseName } from './env.js';
import { partitionByAgent } from './partitioned.js';
import { repoRoot } from './processes.js';
import { buildServiceForTests } from './service-build.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteSnapshot: string;
    postgresTemplate: string;
    /** The same, always in the plain layout (equal to postgresTemplate unless the run is partitioned). */
    postgresPlainTemplate: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The processes' JavaScript (./service-build.ts), first: a failed build leaves nothing behind. The
  // workers, started after this, inherit it. (A folder a later failure leaves, the next run removes.)
  const serviceBuild = project.vitest.config.watch ? null : await buildServiceForTests(repoRoot);
  if (serviceBuild) process.env[SERVICE_BUILD_ENV] = serviceBuild.dir;
  // The snapshot is there on PostgreSQL runs too (a few seconds): tests that seed an embedded data
  // folder from it (faults.test.ts) then behave the same in both runs, which keeps them in project
  // `once` (test/support/projects.ts).
  const snapshot = await pgliteSnapshot();
  // A run of both passes (vitest.config.ts) names the server its project `db-postgres` uses.
  const templateServer = testDatabaseUrl ?? (process.env.TEST_ALSO_ON_POSTGRES || undefined);
  const template = templateServer
    ? await postgresTemplate(templateServer).catch(async (error: unknown) => {
        await snapshot.remove();
        throw error;
      })
    : null;
  const partitioned =
    template && testDatabaseLayout === 'partitioned'
      ? await postgresTemplate(templateServer!, template.name).catch(async (error: unknown) => {
          await template.drop();
          await snapshot.remove();
          throw error;
        })
      : null;
  project.provide('pgliteSnapshot', snapshot.file);
  project.provide('postgresTemplate', (partitioned ?? template)?.name ?? '');
  project.provide('postgresPlainTemplate', template?.name ?? '');
  return async () => {
    await serviceBuild?.remove();
    await partitioned?.drop();
    await template?.drop();
    await snapshot.remove();
  };
}

async function pgliteSnapshot(): Promise<{ file: string; remove(): Promise<void> }> {
  const db = await openDatabase({ dataDir: 'memory://' });
  await db.migrate();
  const dump = await db.pglite!.dumpDataDir('none');
  await db.close();
  const folder = await mkdtemp(path.join(os.tmpdir(), 'memory-test-'));
  const file = path.join(folder, 'migrated.tar');
  await writeFile(file, Buffer.from(await dump.arrayBuffer()));
  return { file, remove: () => rm(folder, { recursive: true, force: true }) };
}

/** A migrated template; from `plain` (a migrated template): a copy rewritten into the partitioned layout. */
async function postgresTemplate(
  serverUrl: string,
  plain?: string,
): Promise<{ name: string; drop(): Promise<void> }> {
  const name = `memory_test_template_${randomBytes(6).toString('hex')}`;
  const adminUrl = withDatabaseName(serverUrl, 'postgres');
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(plain ? `CREATE DATABASE ${name} TEMPLATE ${plain}` : `CREATE DATABASE ${name}`);
  await admin.end();
  const db = await openDatabase({ databaseUrl: withDatabaseName(serverUrl, name), dataDir: '' });
  if (plain) await partitionByAgent((text, params) => db.sql.query(text, params));
  else await db.migrate();
  await db.close();
  return {
    name,
    async drop() {
      const dropper = new pg.Client({ connectionString: adminUrl });
      await dropper.connect();
      await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await dropper.end();
    },
  };
}

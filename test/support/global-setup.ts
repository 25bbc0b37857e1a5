// Migrates once per test run: a PGlite snapshot file, or a PostgreSQL template database that each
// test file clones (CREATE DATABASE … TEMPLATE), so every file starts from an empty, migrated store.
// Names are unique per run, so concurrent runs (a developer and CI on one machine) never collide.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../src/store/db.js';
import { testDatabaseUrl, withDatabaseName } from './env.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteSnapshot: string;
    postgresTemplate: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (testDatabaseUrl) {
    const template = `memory_test_template_${randomBytes(6).toString('hex')}`;
    const adminUrl = withDatabaseName(testDatabaseUrl, 'postgres');
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${template}`);
    await admin.end();
    const db = await openDatabase({ databaseUrl: withDatabaseName(testDatabaseUrl, template), dataDir: '' });
    await db.migrate();
    await db.close();
    project.provide('postgresTemplate', template);
    project.provide('pgliteSnapshot', '');
    return async () => {
      const dropper = new pg.Client({ connectionString: adminUrl });
      await dropper.connect();
      await dropper.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
      await dropper.end();
    };
  }
  const db = await openDatabase({ dataDir: 'memory://' });
  await db.migrate();
  const dump = await db.pglite!.dumpDataDir('none');
  await db.close();
  const folder = await mkdtemp(path.join(os.tmpdir(), 'memory-test-'));
  const snapshot = path.join(folder, 'migrated.tar');
  await writeFile(snapshot, Buffer.from(await dump.arrayBuffer()));
  project.provide('pgliteSnapshot', snapshot);
  project.provide('postgresTemplate', '');
  return async () => {
    await rm(folder, { recursive: true, force: true });
  };
}

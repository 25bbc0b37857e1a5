// Migrates once per test run: a PGlite snapshot file, or a PostgreSQL template database that each
// test file clones (CREATE DATABASE … TEMPLATE), so every file starts from an empty, migrated store.
import { writeFile, mkdir } from 'node:fs/promises';
import pg from 'pg';
import { openDatabase } from '../../src/store/db.js';
import { snapshotPath, templateName, testDatabaseUrl, withDatabaseName } from './env.js';

export default async function setup(): Promise<void> {
  if (testDatabaseUrl) {
    const admin = new pg.Client({ connectionString: withDatabaseName(testDatabaseUrl, 'postgres') });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${templateName} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${templateName}`);
    const db = await openDatabase({
      databaseUrl: withDatabaseName(testDatabaseUrl, templateName),
      dataDir: '',
    });
    await db.migrate();
    await db.close();
    await admin.end();
    return;
  }
  const db = await openDatabase({ dataDir: 'memory://' });
  await db.migrate();
  const dump = await db.pglite!.dumpDataDir('none');
  await db.close();
  await mkdir(new URL('.', snapshotPath), { recursive: true });
  await writeFile(snapshotPath, Buffer.from(await dump.arrayBuffer()));
}

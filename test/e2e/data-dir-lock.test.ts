// S5: one process per embedded data folder — a second `npm start` on the same DATA_DIR refuses to
// start (exit code 2, clear message); a lock left by a SIGKILLed process does not block a restart.
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCK_FILE_NAME } from '../../src/data-dir-lock.js';
import { runServiceToExit, startServiceProcess, type ServiceProcess } from '../support/processes.js';

const embedded = (dataDir: string) => ({ DATA_DIR: dataDir, DATABASE_URL: '', ADMIN_TOKEN: '', DEMO: '0' });

let dataDir: string;
let first: ServiceProcess | undefined;

async function memoryTypesOk(service: ServiceProcess): Promise<boolean> {
  const token = readFileSync(path.join(dataDir, 'admin-token'), 'utf8').trim();
  const response = await fetch(`${service.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: '{ __typename }' }),
  });
  return response.ok;
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'memory-lock-'));
}, 90_000);

afterAll(async () => {
  if (first && first.child.exitCode === null && first.child.signalCode === null) await first.stop('SIGKILL');
  await rm(dataDir, { recursive: true, force: true });
});

describe('S5: one process per embedded data folder', () => {
  it('S5: a second process on the same DATA_DIR refuses to start with exit code 2 and a clear message', async () => {
    first = await startServiceProcess(embedded(dataDir));
    const lockFile = path.join(dataDir, LOCK_FILE_NAME);
    expect(readFileSync(lockFile, 'utf8').trim()).toBe(String(first.child.pid));

    const second = await runServiceToExit(embedded(dataDir));
    expect(second.code).toBe(2);
    expect(second.output).toContain(`another memory service (pid ${first.child.pid}) is already using`);
    expect(second.output).toContain(dataDir);
    expect(second.output).not.toContain('listening on');
    // The first one is undisturbed and still owns the folder.
    expect(await memoryTypesOk(first)).toBe(true);
    expect(readFileSync(lockFile, 'utf8').trim()).toBe(String(first.child.pid));
  }, 120_000);

  it('S5: a clean stop releases the lock', async () => {
    expect((await first!.stop('SIGTERM')).code).toBe(0);
    expect(existsSync(path.join(dataDir, LOCK_FILE_NAME))).toBe(false);
  }, 30_000);

  it('S5: a restart after SIGKILL takes over the stale lock', async () => {
    first = await startServiceProcess(embedded(dataDir));
    await first.stop('SIGKILL');
    const lockFile = path.join(dataDir, LOCK_FILE_NAME);
    expect(existsSync(lockFile)).toBe(true); // left behind by the killed process
    first = await startServiceProcess(embedded(dataDir));
    expect(readFileSync(lockFile, 'utf8').trim()).toBe(String(first.child.pid));
    expect(await memoryTypesOk(first)).toBe(true);
    await first.stop('SIGTERM');
  }, 120_000);

  it('S5: a lock naming a process that no longer exists does not block the start', async () => {
    // A pid far above pid_max (4194304 on Linux) belongs to no process.
    await writeFile(path.join(dataDir, LOCK_FILE_NAME), '99999999\n');
    first = await startServiceProcess(embedded(dataDir));
    expect(await memoryTypesOk(first)).toBe(true);
    await first.stop('SIGTERM');
  }, 120_000);

  it('S5: PostgreSQL mode takes no lock in DATA_DIR', async () => {
    // Another folder with a live "owner" (this test process): PostgreSQL mode ignores it.
    const otherDir = await mkdtemp(path.join(os.tmpdir(), 'memory-lock-pg-'));
    try {
      await writeFile(path.join(otherDir, LOCK_FILE_NAME), `${process.pid}\n`);
      const { code, output } = await runServiceToExit({
        DATA_DIR: otherDir,
        DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none',
        ADMIN_TOKEN: 'adm_lock_test_0123456789',
        DEMO: '0',
      });
      // It gets past the lock and fails only on the unreachable database.
      expect(output).not.toContain('already using');
      expect(code).not.toBe(2);
    } finally {
      await rm(otherDir, { recursive: true, force: true });
    }
  }, 120_000);
});

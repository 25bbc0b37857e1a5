// A private PostgreSQL cluster in a temp folder on a free port, so a test may stop and crash it
// without touching the machine's shared server at 5432. Runs as the `postgres` user (initdb refuses root).
import { execFile, execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './ports.js';

const run = promisify(execFile);

export interface OwnPostgres {
  port: number;
  /** `postgres://postgres@127.0.0.1:<port>/<database>` */
  url(database?: string): string;
  /** Starts the cluster and waits until it accepts connections. */
  start(): Promise<void>;
  /** `immediate` is a crash (no checkpoint, backends killed); `fast` aborts transactions cleanly. */
  stop(mode?: 'immediate' | 'fast'): Promise<void>;
  /** Stops the cluster (if running) and deletes its folder; safe to call more than once. */
  remove(): Promise<void>;
}

async function asPostgres(command: string, args: string[]): Promise<string> {
  const { stdout } = await run('runuser', ['-u', 'postgres', '--', command, ...args], { timeout: 60_000 });
  return stdout;
}

/** initdb + start; the caller must `remove()` it (in afterAll), and a process exit stops it anyway. */
export async function startOwnPostgres(): Promise<OwnPostgres> {
  const bin = (await run('pg_config', ['--bindir'])).stdout.trim();
  const folder = await mkdtemp(path.join(os.tmpdir(), 'memory-own-pg-'));
  await run('chown', ['postgres', folder]);
  const dataDir = path.join(folder, 'db');
  const port = await freePort();
  const pgCtl = path.join(bin, 'pg_ctl');
  await asPostgres(path.join(bin, 'initdb'), ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const options = `-p ${port} -k ${folder} -c listen_addresses=127.0.0.1 -c max_connections=100`;
  let removed = false;
  // If the test process dies before afterAll, the postmaster must not outlive it.
  const stopOnExit = () => {
    try {
      execFileSync('runuser', ['-u', 'postgres', '--', pgCtl, '-D', dataDir, 'stop', '-m', 'immediate'], {
        stdio: 'ignore',
      });
    } catch {
      // already stopped
    }
  };
  process.once('exit', stopOnExit);
  const self: OwnPostgres = {
    port,
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    async start() {
      await asPostgres(pgCtl, [
        '-D',
        dataDir,
        '-o',
        options,
        '-l',
        path.join(folder, 'log'),
        '-w',
        '-t',
        '30',
        'start',
      ]);
    },
    async stop(mode = 'immediate') {
      await asPostgres(pgCtl, ['-D', dataDir, '-m', mode, '-w', '-t', '30', 'stop']);
    },
    async remove() {
      if (removed) return;
      removed = true;
      process.removeListener('exit', stopOnExit);
      await asPostgres(pgCtl, ['-D', dataDir, '-m', 'immediate', 'stop']).catch(() => undefined);
      await rm(folder, { recursive: true, force: true });
    },
  };
  await self.start();
  return self;
}

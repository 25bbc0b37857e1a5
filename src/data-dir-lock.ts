// S5: one process per embedded data folder. A lock file in DATA_DIR holds the owner's pid; a lock
// whose process is gone (killed, crashed) is taken over, so a restart after SIGKILL works.
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const LOCK_FILE_NAME = 'service.lock';

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `another memory service (pid ${pid}) is already using the data folder ${dataDir}; ` +
        'stop it first, or give this one its own DATA_DIR',
    );
  }
}

export interface DataDirLock {
  file: string;
  release(): void;
}

/** Whether process `pid` exists (also one of another user's). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else — still alive.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readPid(file: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(file, 'utf8').trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** Takes the folder or throws DataDirLockedError naming the process that holds it. */
export function lockDataDir(dataDir: string, pid = process.pid): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, LOCK_FILE_NAME);
  // Two attempts: the second after removing a stale lock (bounded; a racing taker wins once).
  for (let attempt = 0; attempt < 2; attempt++) {
    // Written aside and hard-linked into place: the lock file never exists without its pid.
    const pending = `${file}.${pid}.tmp`;
    writeFileSync(pending, `${pid}\n`, { mode: 0o644 });
    try {
      linkSync(pending, file);
      return {
        file,
        release() {
          if (readPid(file) === pid) unlinkSync(file);
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      unlinkSync(pending);
    }
    const holder = readPid(file);
    // Our own pid (a container restarted as pid 1 again) or a dead process: the lock is stale.
    if (holder !== null && holder !== pid && isAlive(holder)) throw new DataDirLockedError(dataDir, holder);
    try {
      unlinkSync(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  const holder = readPid(file);
  throw new DataDirLockedError(dataDir, holder ?? 0);
}

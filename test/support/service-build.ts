// The service's JavaScript for the test run's service and `memory-mcp` processes
// (test/support/processes.ts `programEntry`), made once per run by global-setup.ts: `src/**/*.ts`,
// each file transpiled by esbuild — the transform tsx applies to the same files when `npm start`
// runs them — into a folder beside `src/`, so the paths the service finds from its own location
// (the migrations, schema.graphql, dist/web) are the same. A process started from it skips tsx's
// loader: about 1.5 s less CPU per start, and a run starts some sixty.
//
// `vitest` in watch mode keeps tsx (every start then reads the sources as they are now).
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';
import { isAlive } from '../../src/data-dir-lock.js';

/** The folder's name: one per run (the runner's pid), so runs in one checkout never share one. */
const PREFIX = 'build-tests-';

export async function buildServiceForTests(root: string): Promise<{ dir: string; remove(): Promise<void> }> {
  await removeAbandoned(root);
  const dir = path.join(root, `${PREFIX}${process.pid}`);
  await build({
    absWorkingDir: root,
    entryPoints: ['src/**/*.ts'],
    outbase: 'src',
    outdir: dir,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'inline',
    logLevel: 'warning',
  });
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Folders of runs that ended without their teardown (killed): their runner's pid is gone. */
async function removeAbandoned(root: string): Promise<void> {
  for (const name of await readdir(root)) {
    if (!name.startsWith(PREFIX)) continue;
    const digits = name.slice(PREFIX.length);
    const pid = Number(digits);
    if (/^[1-9]\d*$/.test(digits) && pid !== process.pid && !isAlive(pid))
      await rm(path.join(root, name), { recursive: true, force: true });
  }
}

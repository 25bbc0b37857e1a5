import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { classifyTestFiles } from './test/support/projects.js';

const root = path.dirname(fileURLToPath(import.meta.url));
// Read from the sources on every start (test/support/projects.ts): a new file needs no list. One
// created while `vitest` watches counts as `db` (the safe side) until the next start.
const { once } = classifyTestFiles(root);
// Latency under load (test/load: S8's noisy neighbour): their figures are the service's only when
// nothing else runs, so they run after every other file, one at a time, in both passes.
const LOAD = 'test/load/**/*.test.ts';

// Both projects run the same way; only which files they hold differs. Not `extends: true`: that
// would run the root's globalSetup once more per project.
const project = {
  // One graphql instance: packages that require() it and files that import it must share the CommonJS build.
  resolve: { alias: { graphql: createRequire(import.meta.url).resolve('graphql') } },
  test: {
    // Pothos' onUnusedQuery: 'error' in every test file.
    setupFiles: ['test/support/setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks' as const,
    // Files of a worker share its module graph (the service's modules load once per worker, not once
    // per file: about 40 % of the run). A file that needs fresh modules resets them itself
    // (vi.resetModules: live-render-failure's vi.mock, web-health's time zone) and restores them after.
    isolate: false,
  },
};

// TEST_ALSO_ON_POSTGRES (`npm run test:ci`, CI): one run that holds both passes — everything on PGlite
// and project `db` once more on that PostgreSQL server, as project `db-postgres` — so the workers
// stay busy through the tail of each pass. Its workers alone see TEST_DATABASE_URL.
const alsoOnPostgres = process.env.TEST_ALSO_ON_POSTGRES || undefined;
const dbProject = {
  ...project,
  test: { ...project.test, name: 'db', include: ['test/**/*.test.ts'], exclude: [...once, LOAD] },
};
const loadProject = (name: string, groupOrder: number, env?: Record<string, string>) => ({
  ...project,
  test: { ...project.test, name, include: [LOAD], env, sequence: { groupOrder } },
});

export default defineConfig({
  test: {
    // Once per run, for both projects: migrates the PGlite snapshot (and the PostgreSQL template).
    globalSetup: ['test/support/global-setup.ts'],
    // Files run in parallel workers, shared by both projects; each file gets its own database (a
    // PGlite copy or a fresh PostgreSQL database).
    maxWorkers: 2,
    projects: [
      // Whatever the database kind may change: `npm test` runs it on PGlite, `npm run test:postgres`
      // (CI's second pass) on PostgreSQL. Everything not proven independent lands here.
      dbProject,
      // No database of the run's kind (none, or always the same one): `npm test` runs it once.
      { ...project, test: { ...project.test, name: 'once', include: once, exclude: [LOAD] } },
      // Then the load tests alone: on the run's kind, then (test:ci) on PostgreSQL.
      loadProject('load', 1),
      ...(alsoOnPostgres
        ? [
            {
              ...dbProject,
              test: { ...dbProject.test, name: 'db-postgres', env: { TEST_DATABASE_URL: alsoOnPostgres } },
            },
            loadProject('load-postgres', 2, { TEST_DATABASE_URL: alsoOnPostgres }),
          ]
        : []),
    ],
  },
});

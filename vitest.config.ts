import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // One graphql instance: packages that require() it and files that import it must share the CommonJS build.
  resolve: { alias: { graphql: createRequire(import.meta.url).resolve('graphql') } },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    // Pothos' onUnusedQuery: 'error' in every test file.
    setupFiles: ['test/support/setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Files run in parallel workers; each gets its own database (a PGlite copy or a fresh PostgreSQL database).
    pool: 'forks',
    maxWorkers: 2,
  },
});

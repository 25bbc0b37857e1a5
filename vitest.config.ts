import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Files run in parallel workers; each gets its own database (a PGlite copy or a fresh PostgreSQL database).
    pool: 'forks',
    maxWorkers: 2,
  },
});

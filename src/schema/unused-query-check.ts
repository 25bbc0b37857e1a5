// Pothos' check that a resolver spread the `query` it was handed into its Prisma call (plugin-prisma
// `onUnusedQuery`): off in the service, 'error' under test (test/support/setup.ts). The builder reads
// it once, when the schema is built, so the setting must be made before the schema is imported.
export type UnusedQueryCheck = 'warn' | 'error' | null;

let check: UnusedQueryCheck = null;
let settled = false;

/** Again with the same mode is a no-op (test files sharing a module graph each run the setup). */
export function checkUnusedQueries(mode: UnusedQueryCheck): void {
  if (settled && mode !== check)
    throw new Error('checkUnusedQueries() must run before the schema is imported');
  check = mode;
}

/** The setting for the builder; fixed from the first read on. */
export function unusedQueryCheck(): UnusedQueryCheck {
  settled = true;
  return check;
}

// The rule that splits the suite into project `db` (run on PGlite and again on PostgreSQL) and
// project `once` (test/support/projects.ts, docs/development.md "Testing"). A file that may depend on
// the database kind must never end up in `once`: CI would then test it on PGlite only.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { classify, classifyTestFiles, FIXED_KIND, KIND_MARKERS } from '../support/projects.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A small test/ tree: env.ts reads the variable, db.ts and harness.ts build on it as the real ones do. */
const SUPPORT: Record<string, string> = {
  'test/support/env.ts': `
    export const testDatabaseUrl = process.env.TEST_DATABASE_URL || undefined;
    export function withDatabaseName(url: string, name: string) { return url + name; }`,
  'test/support/db.ts': `
    import { inject } from 'vitest';
    import { testDatabaseUrl, withDatabaseName } from './env.js';
    export async function createTestDatabase() { return testDatabaseUrl ? withDatabaseName(testDatabaseUrl, 'x') : inject('pgliteSnapshot'); }`,
  'test/support/harness.ts': `
    import { createTestDatabase } from './db.js';
    export const ADMIN_TOKEN = 'adm';
    export interface Harness { close(): Promise<void> }
    export async function startHarness(): Promise<Harness> { await createTestDatabase(); return { close: async () => {} }; }`,
  'test/support/processes.ts': `
    import { withDatabaseName } from './env.js';
    export const sharedPostgresUrl = process.env.TEST_DATABASE_URL || 'postgres://127.0.0.1/postgres';
    export async function createPostgresDatabase() { return withDatabaseName(sharedPostgresUrl, 'y'); }`,
  'test/support/hooks.ts': `
    import { beforeAll } from 'vitest';
    import { testDatabaseUrl } from './env.js';
    beforeAll(() => { if (testDatabaseUrl) throw new Error('x'); });
    export const harmless = 1;`,
  'test/support/barrel.ts': `export { startHarness } from './harness.js';`,
  'test/support/relay.ts': `import { startHarness } from './harness.js';\nexport { startHarness as open };`,
  'test/support/default.ts': `
    import { testDatabaseUrl } from './env.js';
    export default function kind() { return testDatabaseUrl; }`,
  'test/support/everything.ts': `export * from './harness.js';`,
  'test/support/cycle-a.ts': `
    import { b } from './cycle-b.js';
    export const a = () => b();
    export const kind = () => process.env.TEST_DATABASE_URL;`,
  'test/support/cycle-b.ts': `
    import { a, kind } from './cycle-a.js';
    export const b = (): unknown => (Math.random() > 2 ? a() : kind());`,
};

function projectOf(test: string): 'db' | 'once' {
  const files: Record<string, string> = { ...SUPPORT, 'test/x.test.ts': test };
  const { db } = classify(['test/x.test.ts'], (file) => {
    const text = files[file];
    if (text === undefined) throw new Error(`no ${file}`);
    return text;
  });
  return db.length ? 'db' : 'once';
}

describe('Test projects: a file runs on both databases when the database kind can change it', () => {
  it.each([
    ['a harness', `import { startHarness } from './support/harness.js'; it('x', () => startHarness());`],
    ['the variable itself', `it('x', () => expect(process.env.TEST_DATABASE_URL).toBeDefined());`],
    [
      'env.ts’s testDatabaseUrl',
      `import { testDatabaseUrl } from './support/env.js'; it.skipIf(!testDatabaseUrl)('x', () => {});`,
    ],
    ['the PostgreSQL template', `import { inject } from 'vitest'; const t = inject('postgresTemplate');`],
    [
      'a helper module whose top level reads the kind, whatever it takes from it',
      `import { harmless } from './support/hooks.js'; it('x', () => harmless);`,
    ],
    ['a side-effect import of such a module', `import './support/hooks.js';`],
    ['a re-export', `import { startHarness } from './support/barrel.js'; it('x', () => startHarness());`],
    ['an imported name exported again', `import { open } from './support/relay.js'; it('x', () => open());`],
    ['a default export', `import kind from './support/default.js'; it('x', () => kind());`],
    ['an export *', `import { startHarness } from './support/everything.js'; it('x', () => startHarness());`],
    ['a namespace import', `import * as h from './support/harness.js'; it('x', () => h.ADMIN_TOKEN);`],
    ['a dynamic import', `it('x', async () => (await import('./support/harness.js')).startHarness());`],
    [
      'a renamed import',
      `import { startHarness as start } from './support/harness.js'; it('x', () => start());`,
    ],
    ['modules that import each other', `import { b } from './support/cycle-b.js'; it('x', () => b());`],
    [
      'a local helper built on one',
      `import { startHarness } from './support/harness.js';\nconst open = () => startHarness();\nit('x', () => open());`,
    ],
  ])('Test projects: %s ⇒ db', (_, source) => {
    expect(projectOf(source)).toBe('db');
  });

  it.each([
    ['no database', `import { it } from 'vitest'; it('x', () => 1);`],
    [
      'src/ alone (it never reads the variable: see below)',
      `import { openDatabase } from '../src/store/db.js';`,
    ],
    [
      'the harness’s types and constants only',
      `import type { Harness } from './support/harness.js'; let h: Harness;`,
    ],
    ['a type-only name', `import { type Harness } from './support/harness.js'; let h: Harness;`],
    [
      'the shared PostgreSQL server (always PostgreSQL)',
      `import { createPostgresDatabase } from './support/processes.js'; it('x', () => createPostgresDatabase());`,
    ],
    [
      'a pure helper next to the variable',
      `import { withDatabaseName } from './support/env.js'; it('x', () => withDatabaseName('a', 'b'));`,
    ],
    ['a comment naming the variable', `// runs the same with TEST_DATABASE_URL set\nit('x', () => 1);`],
  ])('Test projects: %s ⇒ once', (_, source) => {
    expect(projectOf(source)).toBe('once');
  });

  it('Test projects: a constant of a module (ADMIN_TOKEN) does not drag in its database helpers', () => {
    // Only by declaration: the module also holds startHarness, but this file never calls it.
    expect(projectOf(`import { ADMIN_TOKEN } from './support/harness.js'; it('x', () => ADMIN_TOKEN);`)).toBe(
      'once',
    );
  });
});

describe('Test projects: this tree', () => {
  const { db, once } = classifyTestFiles(repoRoot);

  it.each([
    'test/api/admin.test.ts', // startHarness
    'test/api/migrations.test.ts', // createTestDatabase
    'test/e2e/mcp.test.ts', // startMcpService
    'test/load/noisy-neighbour.test.ts', // testDatabaseUrl picks the service's database
  ])('Test projects: %s runs on both databases', (file) => {
    expect(db).toContain(file);
  });

  it.each([
    'test/unit/cursor.test.ts', // no database
    'test/unit/csv.test.ts', // a private PGlite, always
    'test/e2e/multi-instance.test.ts', // always PostgreSQL (sharedPostgresUrl)
    'test/e2e/faults.test.ts', // its own PostgreSQL and PGlite folders, seeded from the snapshot both runs have
    'test/e2e/main-process.test.ts', // always an embedded DATA_DIR
    'test/e2e/memories-page.test.ts', // a browser over startEmbeddedHarness
    'test/e2e/memories-health.test.ts', // likewise
    'test/e2e/readme-examples.test.ts', // embedded modes and a PostgreSQL one (sharedPostgresUrl), in every run
  ])('Test projects: %s runs once', (file) => {
    expect(once).toContain(file);
  });

  it('Test projects: every exemption names a declaration that still reads a marker', () => {
    for (const [file, names] of Object.entries(FIXED_KIND)) {
      const text = readFileSync(path.join(repoRoot, file), 'utf8');
      for (const name of names) {
        const declaration = new RegExp(`export const ${name}\\b[^;]*;`).exec(text)?.[0] ?? '';
        expect(
          KIND_MARKERS.some((marker) => declaration.includes(marker)),
          `${file}: ${name}`,
        ).toBe(true);
      }
    }
  });

  it('Test projects: the service, its bins and scripts never read the markers (the kind enters through test/ only)', () => {
    // The rule follows test/ modules only; a marker in src/ would make every importer depend on the kind unseen.
    const offenders: string[] = [];
    for (const folder of ['src', 'bin', 'scripts']) {
      for (const name of readdirSync(path.join(repoRoot, folder), { recursive: true }) as string[]) {
        if (!/\.(ts|tsx|js|mjs|cjs)$/.test(name) || name.includes('generated')) continue;
        const text = readFileSync(path.join(repoRoot, folder, name), 'utf8');
        if (KIND_MARKERS.some((marker) => text.includes(marker))) offenders.push(`${folder}/${name}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});

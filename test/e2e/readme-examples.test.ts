// The walk-through (docs/walkthrough.md, then docs/api.md's examples) runs as pasted against a fresh service.
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/db.js';
import { createPostgresDatabase, startServiceProcess, type ServiceProcess } from '../support/processes.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** Files whose marked examples run, in this order, in one shell session (api.md continues the walk-through). */
const SOURCES = ['docs/walkthrough.md', 'docs/api.md'];
/** Files whose every shell, GraphQL and JavaScript block must be marked (the README's run nowhere). */
const MARKED = ['README.md', ...SOURCES];
/** The one place a block may name the default address: the walk-through's `BASE` fallback. */
const BASE_DEFAULT = 'BASE=${BASE:-http://127.0.0.1:${PORT:-4000}}';
/** The settings a reader exports for the blocks; the test's own environment must not leak them in. */
const READER_SETTINGS = ['BASE', 'PORT', 'HOST', 'DATA_DIR', 'ADMIN_TOKEN', 'DATABASE_URL'];
const BLOCK_TIMEOUT_MS = 30_000;

interface Example {
  file: string;
  name: string;
  code: string;
  expect?: string;
  exit: number;
}

/**
 * A runnable block is a ```sh fence right after `<!-- example: NAME [expect="TEXT"] [exit=N] -->`;
 * every sh/bash/graphql/js fence must carry that marker or `<!-- not-run: reason -->`, so no
 * example escapes the test.
 */
function extractExamples(file: string, markdown: string): { examples: Example[]; unmarked: string[] } {
  const examples: Example[] = [];
  const unmarked: string[] = [];
  const fence = /(?:<!--\s*(example|not-run):?([^\n]*?)-->\s*\n)?```(\w*)\n([\s\S]*?)```/g;
  for (const match of markdown.matchAll(fence)) {
    const [, kind, attributes = '', language = '', code = ''] = match;
    if (!['sh', 'bash', 'graphql', 'js', 'ts'].includes(language)) continue;
    if (kind === 'not-run') continue;
    if (kind !== 'example' || language !== 'sh') {
      unmarked.push(`${file}: ${code.split('\n')[0]}`);
      continue;
    }
    const name = /^\s*([\w-]+)/.exec(attributes)?.[1] ?? '?';
    const expected = /expect="((?:[^"\\]|\\.)*)"/.exec(attributes)?.[1]?.replace(/\\(.)/g, '$1');
    const exit = Number(/exit=(\d+)/.exec(attributes)?.[1] ?? 0);
    examples.push({ file, name, code, expect: expected, exit });
  }
  return { examples, unmarked };
}

/** One bash session, like a reader's terminal: variables and functions carry over between blocks. */
class Shell {
  private out = '';
  private readonly child: ChildProcessWithoutNullStreams;
  constructor(cwd: string, env: Record<string, string>) {
    const inherited = { ...process.env };
    for (const name of READER_SETTINGS) delete inherited[name];
    this.child = spawn('bash', ['--noprofile', '--norc'], { cwd, env: { ...inherited, ...env } });
    this.child.stdout.on('data', (chunk: Buffer) => (this.out += chunk.toString()));
    this.child.stderr.on('data', (chunk: Buffer) => (this.out += chunk.toString()));
  }

  /** Runs a block; the ERR trap records the status of any failing command, not just the last one. */
  async run(file: string, code: string): Promise<{ output: string; status: number }> {
    await writeFile(file, code);
    const start = this.out.length;
    const marker = `__DONE_${Math.random().toString(36).slice(2)}__`;
    this.child.stdin.write(
      `__status=0; set -o pipefail; trap '__status=$?; echo "failed with $__status: $BASH_COMMAND" >&2' ERR; source ${JSON.stringify(file)}; trap - ERR; echo "${marker}:$__status"\n`,
    );
    const deadline = Date.now() + BLOCK_TIMEOUT_MS;
    for (;;) {
      const done = new RegExp(`${marker}:(\\d+)`).exec(this.out.slice(start));
      if (done) return { output: this.out.slice(start, start + done.index), status: Number(done[1]) };
      if (Date.now() > deadline || this.child.exitCode !== null)
        return { output: this.out.slice(start), status: -1 };
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  close(): void {
    this.child.kill('SIGKILL');
  }
}

const ADMIN = 'readme-admin-token-0123456789';
/**
 * What the reader's terminal knows: the default mode exports only `PORT` (the admin token from the
 * default `.data` folder); the others set `BASE` and either `DATA_DIR` (a folder elsewhere) or,
 * with PostgreSQL, `ADMIN_TOKEN` — as the walk-through's set-up tells a reader to. The PostgreSQL
 * mode uses the machine's server (TEST_DATABASE_URL's, else 127.0.0.1:5432) in every run, so the
 * file runs once and each mode once.
 */
const modes = [
  { label: 'embedded, DEMO=1 (the default), PORT exported', postgres: false, demo: '', dataDir: '.data' },
  {
    label: 'embedded, DEMO=0, BASE and DATA_DIR exported',
    postgres: false,
    demo: '0',
    dataDir: 'elsewhere/db',
  },
  {
    label: 'PostgreSQL, no demo, BASE and ADMIN_TOKEN exported',
    postgres: true,
    demo: '0',
    dataDir: '.data',
  },
];

describe('README examples: jq and curl exist (the examples need them; .ci/run installs them)', () => {
  it('README: curl and jq are on PATH', () => {
    for (const tool of ['curl', 'jq'])
      expect(spawnSync(tool, ['--version']).status, `${tool} is required`).toBe(0);
  });
});

describe('README: every shell, GraphQL and JavaScript block is marked', () => {
  it('README: no block escapes the example test', async () => {
    for (const file of MARKED) {
      const { examples, unmarked } = extractExamples(file, await readFile(path.join(repoRoot, file), 'utf8'));
      expect(unmarked).toEqual([]);
      if (file === 'docs/walkthrough.md') expect(examples.length).toBeGreaterThanOrEqual(9);
    }
  });

  it('README: the walk-through reads the address once, from BASE or PORT', async () => {
    const text = await readFile(path.join(repoRoot, SOURCES[0]!), 'utf8');
    expect(text.split(BASE_DEFAULT).length - 1).toBe(1);
  });
});

/** Runs the blocks left `RUNNING`, counted in the database once the service has stopped. */
async function runningRuns(databaseUrl: string | undefined, dataDir: string): Promise<number> {
  const db = await openDatabase({ databaseUrl, dataDir });
  try {
    return await db.prisma.run.count({ where: { status: 'RUNNING' } });
  } finally {
    await db.close();
  }
}

for (const mode of modes) {
  describe(`README walk-through as pasted (${mode.label})`, { timeout: 240_000 }, () => {
    let workDir: string;
    let service: ServiceProcess;
    let shell: Shell;
    let dropDatabase: (() => Promise<void>) | undefined;
    let databaseUrl: string | undefined;
    let dataDir: string;

    beforeAll(async () => {
      // The reader's clone: `.data` is the embedded database folder, node_modules is the project's.
      workDir = await mkdtemp(path.join(os.tmpdir(), 'memory-readme-'));
      await symlink(path.join(repoRoot, 'node_modules'), path.join(workDir, 'node_modules'));
      dataDir = path.join(workDir, mode.dataDir);
      const env: Record<string, string> = { DATA_DIR: dataDir, DEMO: mode.demo };
      if (mode.postgres) {
        const database = await createPostgresDatabase();
        dropDatabase = database.drop;
        databaseUrl = database.url;
        Object.assign(env, { DATABASE_URL: database.url, ADMIN_TOKEN: ADMIN });
      } else {
        Object.assign(env, { DATABASE_URL: '', ADMIN_TOKEN: '' });
      }
      service = await startServiceProcess(env);
      // Only what the walk-through's set-up tells a reader to export, never the address itself.
      const shellEnv: Record<string, string> =
        mode.dataDir === '.data' && !mode.postgres
          ? { PORT: new URL(service.url).port }
          : { BASE: service.url, ...(mode.postgres ? { ADMIN_TOKEN: ADMIN } : { DATA_DIR: dataDir }) };
      shell = new Shell(workDir, shellEnv);
    }, 120_000);

    afterAll(async () => {
      shell?.close();
      if (service && service.child.exitCode === null) await service.stop('SIGKILL');
      await dropDatabase?.();
      await rm(workDir, { recursive: true, force: true });
    });

    it('README: the service prints the admin token the examples read from DATA_DIR/admin-token', async () => {
      if (mode.postgres) return expect(service.output()).not.toContain('admin token:');
      const printed = /admin token: +(adm_\S+)/.exec(service.output())?.[1];
      expect(printed).toBeDefined();
      expect((await readFile(path.join(dataDir, 'admin-token'), 'utf8')).trim()).toBe(printed);
    });

    it('README: each example block runs in order, exits as documented and answers without errors', async () => {
      let index = 0;
      for (const file of SOURCES) {
        const { examples } = extractExamples(file, await readFile(path.join(repoRoot, file), 'utf8'));
        for (const example of examples) {
          // Pasted unchanged: the service is on a free port, so an address other than $BASE fails here.
          expect(example.code.replace(BASE_DEFAULT, ''), `${example.file} "${example.name}"`).not.toMatch(
            /\/\/(127\.0\.0\.1|localhost|\[::1\])[:/]/,
          );
          const { output, status } = await shell.run(path.join(workDir, `block-${index++}.sh`), example.code);
          const where = `${example.file} example "${example.name}":\n${output}`;
          expect(status, where).toBe(example.exit);
          expect(output, where).not.toMatch(/"errors"\s*:/);
          expect(output, where).not.toMatch(/^null$/m);
          if (example.expect) expect(output, where).toContain(example.expect);
        }
      }
    });

    it('README: the walk-through finishes every run it starts (none is left RUNNING)', async () => {
      expect((await service.stop('SIGTERM')).code).toBe(0);
      expect(await runningRuns(databaseUrl, dataDir)).toBe(0);
    });
  });
}

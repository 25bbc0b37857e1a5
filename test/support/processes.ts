// Real service processes (`src/main.ts`), as production runs them.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { SERVICE_BUILD_ENV, TEST_POOL_SIZE, withDatabaseName } from './env.js';

/** The checkout's root folder (the folder of package.json). */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The Node flags `npm start` gives the service (package.json's start script: `tsx <flags> src/main.ts`),
 * so every process started here runs with them too, the bench's included.
 */
const startFlags: string[] = (
  JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { scripts: { start: string } }
).scripts.start
  .split(/\s+/)
  .filter((word) => word.startsWith('--'));

/** The test run's JavaScript of src/ (./service-build.ts), when the run made one. */
const testBuild = process.env[SERVICE_BUILD_ENV] || undefined;

/**
 * Node's arguments that run the program `src/<program>.ts`: the test run's transpiled copy when there
 * is one, else `tsxEntry` (by default the source through tsx).
 */
export function programEntry(
  program: 'main' | 'memory-mcp',
  tsxEntry = ['--import', 'tsx', path.join(repoRoot, `src/${program}.ts`)],
): string[] {
  return testBuild ? [path.join(testBuild, `${program}.js`)] : tsxEntry;
}

/**
 * The service's process: npm start's flags, then `nodeArgs`, then the entry: `npm run build`'s
 * JavaScript when `built`, else `programEntry('main')`.
 */
function spawnService(env: Record<string, string>, nodeArgs: string[] = [], built = false) {
  const entry = built ? [path.join(repoRoot, 'build/main.js')] : programEntry('main');
  return spawn(process.execPath, [...startFlags, ...nodeArgs, ...entry], {
    cwd: repoRoot,
    env: {
      ...process.env,
      PORT: '0',
      LOG_LEVEL: 'warn',
      DATABASE_POOL_SIZE: String(TEST_POOL_SIZE),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Several instances need a shared server database: always PostgreSQL, even in the PGlite run. */
export const sharedPostgresUrl =
  process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

export async function createPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `memory_multi_${randomUUID().replace(/-/g, '')}`;
  const admin = new pg.Client({ connectionString: withDatabaseName(sharedPostgresUrl, 'postgres') });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return {
    url: withDatabaseName(sharedPostgresUrl, name),
    async drop() {
      const dropper = new pg.Client({ connectionString: withDatabaseName(sharedPostgresUrl, 'postgres') });
      await dropper.connect();
      await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await dropper.end();
    },
  };
}

export interface ServiceProcess {
  url: string;
  child: ChildProcess;
  output(): string;
  /** Sends `signal` and resolves with the exit code and how long the exit took. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; ms: number }>;
}

/**
 * `nodeArgs` go before the entry point (e.g. `--cpu-prof` for a benchmark); `built` runs the
 * JavaScript of `npm run build` (`build/main.js`) with plain node instead of `src/main.ts` through tsx.
 */
export async function startServiceProcess(
  env: Record<string, string>,
  nodeArgs: string[] = [],
  built = false,
): Promise<ServiceProcess> {
  if (built && !existsSync(path.join(repoRoot, 'build/main.js')))
    throw new Error('build/main.js is missing: run `npm run build` first');
  const child = spawnService(env, nodeArgs, built);
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      // Not left running: a process that never listened would keep its caller's event loop alive.
      child.kill('SIGKILL');
      reject(new Error(`service did not start in 60 s:\n${out}`));
    }, 60_000);
    const check = () => {
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout!.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code}:\n${out}`));
    });
  });
  return {
    url,
    child,
    output: () => out,
    async stop(signal = 'SIGTERM') {
      const started = Date.now();
      child.kill(signal);
      const code = await exited;
      return { code, ms: Date.now() - started };
    },
  };
}

/** Runs `src/main.ts` expecting it to exit by itself (a refused start); resolves with its code and output. */
export function runServiceToExit(
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawnService(env);
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the service process did not exit in 60 s:\n${output}`));
    }, 60_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/**
 * Several instances (L3, S10): two service processes on one fresh PostgreSQL database with Redis
 * between them (the shared one unless `extraEnv` says otherwise, e.g. a Redis Cluster, D4); `stop`
 * ends both and drops the database.
 */
export async function startInstancePair(
  adminToken: string,
  extraEnv: Record<string, string> = {},
): Promise<{ a: ServiceProcess; b: ServiceProcess; stop(): Promise<void> }> {
  const database = await createPostgresDatabase();
  const env = {
    DATABASE_URL: database.url,
    ADMIN_TOKEN: adminToken,
    REDIS_URL: 'redis://127.0.0.1:6379',
    DEMO: '0',
    ...extraEnv,
  };
  const started: ServiceProcess[] = [];
  const stop = async () => {
    await Promise.all(started.map((service) => service.stop()));
    await database.drop();
  };
  try {
    started.push(await startServiceProcess(env)); // migrates the new database
    started.push(await startServiceProcess(env));
  } catch (error) {
    await stop();
    throw error;
  }
  const [a, b] = started as [ServiceProcess, ServiceProcess];
  return { a, b, stop };
}

/** A GraphQL request to a service process; throws on `errors`. */
export async function gqlOverHttp<T>(
  base: string,
  token: string,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<T> {
  const response = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
    signal: AbortSignal.timeout(10_000),
  });
  const json = (await response.json()) as { data: T; errors?: unknown };
  if (json.errors) throw new Error(JSON.stringify(json.errors));
  return json.data;
}

/** Through a service process's admin API: an agent, an Analysis producer with a running run, an operator token. */
export async function agentOverHttp(base: string, adminToken: string, name: string) {
  const admin = <T>(query: string, variables: Record<string, unknown> = {}) =>
    gqlOverHttp<T>(base, adminToken, query, variables);
  const { createAgent } = await admin<{ createAgent: { id: string } }>(
    'mutation($n: String!) { createAgent(input: { name: $n }) { id } }',
    { n: name },
  );
  const { createProducer } = await admin<{ createProducer: { id: string } }>(
    'mutation($a: UUID!) { createProducer(input: { agentId: $a, kind: ANALYSIS, name: "p" }) { id } }',
    { a: createAgent.id },
  );
  const { startRun } = await admin<{ startRun: { token: string } }>(
    'mutation($p: UUID!) { startRun(input: { producerId: $p }) { token } }',
    { p: createProducer.id },
  );
  const { createOperatorToken } = await admin<{ createOperatorToken: { token: string } }>(
    'mutation($a: UUID!) { createOperatorToken(agentId: $a) { token } }',
    { a: createAgent.id },
  );
  return { agentId: createAgent.id, runToken: startRun.token, operatorToken: createOperatorToken.token };
}

// Shared pieces of the benchmarks: a migrated PostgreSQL database, the service process, HTTP load, percentiles.
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import pg from 'pg';
import { openDatabase } from '../src/store/db.js';
import { DEFAULT_POOL_SIZE } from '../src/store/pool-sizes.js';
import { withDatabaseName } from '../test/support/env.js';
import { startServiceProcess as startServiceProcessWith } from '../test/support/processes.js';

export const BENCH_ADMIN_TOKEN = 'adm_bench_token_0123456789abcdef';

export { withDatabaseName };

/** Creates the database when missing (and `fresh` drops it first), then applies migrations. */
export async function benchDatabase(baseUrl: string, name: string, fresh: boolean): Promise<string> {
  const admin = new pg.Client({ connectionString: withDatabaseName(baseUrl, 'postgres') });
  await admin.connect();
  if (fresh) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
  if (!exists.rowCount) await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = withDatabaseName(baseUrl, name);
  const db = await openDatabase({ databaseUrl: url, dataDir: '' });
  await db.migrate();
  await db.close();
  return url;
}

/** Runs one SQL statement on some driver (a `pg` client, a PGlite instance); resolves with its row count. */
type RunSql = (sql: string) => Promise<number>;

/** Runs a dataset's statements in one transaction (an interrupted load leaves nothing), logging each step's rows and time. */
export async function runInOneTransaction(
  run: RunSql,
  statements: string[],
  log: (line: string) => void,
): Promise<void> {
  await run('BEGIN');
  try {
    for (const [index, sql] of statements.entries()) {
      const started = performance.now();
      const rows = await run(sql);
      log(`  step ${index}: ${rows} rows, ${Math.round(performance.now() - started)} ms`);
    }
    await run('COMMIT');
  } catch (error) {
    await run('ROLLBACK');
    throw error;
  }
}

/**
 * The dataset's statements on a PostgreSQL database in one transaction, then VACUUM ANALYZE
 * (statistics and the visibility map for index-only scans).
 */
export async function loadInOneTransaction(
  url: string,
  statements: string[],
  log: (line: string) => void,
): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await runInOneTransaction(async (sql) => (await client.query(sql)).rowCount ?? 0, statements, log);
    await client.query('VACUUM ANALYZE');
  } finally {
    await client.end();
  }
}

/** A server of ours in its own process (node `args`); resolves once it prints `listening on <url>`. */
export async function startListeningProcess(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ url: string; pid: number; close(): Promise<void> }> {
  const child: ChildProcess = spawn(process.execPath, args, {
    env: { ...process.env, NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { url, pid: child.pid!, close: () => (releaseAgent(url), child.kill('SIGTERM'), exited) };
}

export async function gqlRequest<T>(
  url: string,
  token: string,
  query: string,
  variables: Record<string, unknown>,
): Promise<T> {
  const { json } = (await postJson(`${url}/graphql`, { query, variables }, token)) as {
    json: { data?: T; errors?: unknown[] };
  };
  if (json.errors?.length) throw new Error(JSON.stringify(json.errors));
  return json.data as T;
}

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Runs `clients` loops of `op` for `seconds`; returns ops/s and sorted latencies (ms). */
export async function closedLoop(clients: number, seconds: number, op: (client: number) => Promise<void>) {
  const latencies: number[] = [];
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        await op(client);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { opsPerSecond: latencies.length / elapsed, latencies };
}

/** The real service (`src/main.ts`) in its own process, as production runs it; the load comes from this process. */
export async function startServiceProcess(
  databaseUrl: string,
  env: Record<string, string> = {},
  built = false,
  nodeArgs: string[] = [],
): Promise<{ url: string; child: ChildProcess; close(): Promise<void> }> {
  // BENCH_PROFILE=<dir> writes a CPU profile of the service there.
  const flags = process.env.BENCH_PROFILE
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`, ...nodeArgs]
    : nodeArgs;
  const service = await startServiceProcessWith(
    {
      DATABASE_URL: databaseUrl,
      ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
      DEMO: '0',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
      // Production's pools, not the tests' smaller ones (test/support/processes.ts).
      DATABASE_POOL_SIZE: String(DEFAULT_POOL_SIZE),
      ...env,
    },
    flags,
    built,
  );
  running.add(service.child);
  let closing = false;
  service.child.once('exit', (code, signal) => {
    running.delete(service.child);
    // A service that dies under load is a finding: say so with what it wrote last.
    if (!closing)
      process.stderr.write(`service exited (${code ?? signal}):\n${service.output().slice(-4000)}\n`);
  });
  return {
    url: service.url,
    child: service.child,
    close: async () => {
      // Idle keep-alive sockets to a stopped server would be reset with no request to fail (ECONNRESET).
      releaseAgent(service.url);
      closing = true;
      // BENCH_SERVICE_OUTPUT=1: what the service logged (warnings and errors), to see why a row looks wrong.
      if (process.env.BENCH_SERVICE_OUTPUT)
        process.stderr.write(`service output:\n${service.output().slice(-6000)}\n`);
      await service.stop('SIGTERM');
    },
  };
}

/** Servers this bench started: killed if the bench dies first (a crash must not leave them listening). */
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});
// A bench stopped with Ctrl-C or kill exits through 'exit' too (Node's default would skip it).
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => process.exit(signal === 'SIGINT' ? 130 : 143));

/**
 * One keep-alive agent per server (origin): stopping a server drops its idle sockets and no other's,
 * so scenarios that run at once (`--quick`'s lanes, bench/run.ts) never lose a socket to another's stop.
 */
const agents = new Map<string, http.Agent>();

function agentFor(target: URL): http.Agent {
  let agent = agents.get(target.origin);
  if (!agent) agents.set(target.origin, (agent = new http.Agent({ keepAlive: true, maxSockets: 256 })));
  return agent;
}

function releaseAgent(url: string): void {
  const origin = new URL(url).origin;
  agents.get(origin)?.destroy();
  agents.delete(origin);
}

/**
 * POST JSON over a keep-alive agent (lighter than fetch, so the load generator stays small). A
 * request sent on a reused socket that the server closed as idle at that moment (ECONNRESET, the
 * race Node's `request.reusedSocket` documents) never reached it and is sent again, once.
 */
export function postJson(url: string, body: unknown, token?: string): Promise<{ status: number; json: any }> {
  return postJsonOnce(url, body, token).catch((error: unknown) => {
    if (error instanceof ReusedSocketReset) return postJsonOnce(url, body, token);
    throw error;
  });
}

class ReusedSocketReset extends Error {}

function postJsonOnce(url: string, body: unknown, token?: string): Promise<{ status: number; json: any }> {
  const payload = JSON.stringify(body);
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        agent: agentFor(target),
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (c: Buffer) => chunks.push(c));
        response.on('end', () => {
          try {
            resolve({ status: response.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString()) });
          } catch (error) {
            reject(error);
          }
        });
      },
    );
    request.on('error', (error: NodeJS.ErrnoException) =>
      reject(
        request.reusedSocket && error.code === 'ECONNRESET'
          ? new ReusedSocketReset(error.message, { cause: error })
          : error,
      ),
    );
    request.end(payload);
  });
}

/** A second service to measure beside the first: BENCH_SERVICE_VARIANT, parsed. */
export interface ServiceVariant {
  /** The variable as given: the side's name says it. */
  label: string;
  env: Record<string, string>;
  /** Run `npm run build`'s JavaScript instead of src/main.ts through tsx. */
  built: boolean;
  /** Node flags after npm start's own (the later of two V8 flags wins: `--max-semi-space-size=16`). */
  nodeArgs: string[];
}

/**
 * BENCH_SERVICE_VARIANT="NAME=value,…": the browse scenarios measure a second service with that
 * environment in the same rounds (an A/B of a change behind a switch). The word `built` runs it from
 * the build; an entry starting with `--` is a Node flag.
 */
export function serviceVariant(value = process.env.BENCH_SERVICE_VARIANT): ServiceVariant | null {
  if (!value) return null;
  const variant: ServiceVariant = { label: value, env: {}, built: false, nodeArgs: [] };
  for (const entry of value.split(',')) {
    const at = entry.indexOf('=');
    if (entry === 'built') variant.built = true;
    else if (entry.startsWith('--')) variant.nodeArgs.push(entry);
    else if (at >= 1) variant.env[entry.slice(0, at)] = entry.slice(at + 1);
    else throw new Error(`BENCH_SERVICE_VARIANT: "${entry}" is neither NAME=value, --node-flag nor built`);
  }
  return variant;
}

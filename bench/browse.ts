// browse / types: the Memories tab's reads on the bench:data dataset (browse-data.ts), the service
// against PostGraphile 5 (bench/peers/postgraphile-server.mjs) and a raw-pg floor (browse-floor.ts),
// each its own process on the same database. The load is autocannon in a forked process
// (browse-load.ts); rounds alternate the servers (rotating who goes first); every figure is the
// median over the rounds. Server CPU per request comes from /proc/<pid>/stat, PostgreSQL's from its
// backends on the bench database (pg_stat_activity), both as deltas over the round.
import { fork } from 'node:child_process';
import os from 'node:os';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { prepareBrowseDataset, type BrowseDataset } from './browse-data.js';
import type { LoadCommand, LoadReport } from './browse-load.js';
import {
  BROWSE_OPS,
  TYPES_OP,
  floorSide,
  postgraphileSide,
  serviceSide,
  serviceWithPeerFieldsSide,
  SAME_FIELDS_AS_PEER,
  type Op,
  type Side,
} from './browse-sides.js';
import { cpuSeconds } from './fanout-fleet.js';
import { postJson, serviceVariant, startListeningProcess, startServiceProcess } from './support.js';
import { mergeReports, type BenchRow, type ScenarioReport } from './table.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const loadAverage = () =>
  os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');

interface Loader {
  run(command: LoadCommand): Promise<LoadReport>;
  close(): void;
}

function forkLoader(): Loader {
  const child = fork(path.join(here, 'browse-load.ts'), [], { execArgv: ['--import', 'tsx'] });
  return {
    run: (command) =>
      new Promise((resolve, reject) => {
        child.once('message', (message: LoadReport & { error?: string }) =>
          message.error ? reject(new Error(message.error)) : resolve(message),
        );
        child.send(command);
      }),
    close: () => child.send('close'),
  };
}

/** CPU seconds so far of every PostgreSQL backend connected to the bench database. */
export async function backendCpu(probe: pg.Client, database: string): Promise<Map<number, number>> {
  const { rows } = await probe.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
    [database],
  );
  const cpu = new Map<number, number>();
  for (const { pid } of rows) {
    try {
      cpu.set(pid, cpuSeconds(pid));
    } catch {
      // the backend ended meanwhile
    }
  }
  return cpu;
}

export interface Sample {
  rps: number;
  p50: number;
  p99: number;
  /** Server CPU ms per request. */
  cpu: number;
  /** PostgreSQL backends' CPU ms per request. */
  db: number;
}

interface Setup {
  dataset: BrowseDataset;
  loader: Loader;
  probe: pg.Client;
  connections: number;
  seconds: number;
  /** Progress on stderr (the figures go to stdout). */
  progress(message: string): void;
}

/**
 * Waits until no statement runs on the bench database: a statement of the previous round still
 * running (a side that kept working after its load stopped) would be counted against the next side.
 * Bounded: a database that stays busy for 30 s fails the bench with what it runs.
 */
async function quiesce(probe: pg.Client, database: string): Promise<void> {
  const busy = async () =>
    (
      await probe.query<{ query: string }>(
        `SELECT left(query, 120) AS query FROM pg_stat_activity
          WHERE datname = $1 AND pid <> pg_backend_pid() AND state = 'active'`,
        [database],
      )
    ).rows;
  const deadline = Date.now() + 30_000;
  for (;;) {
    const running = await busy();
    if (running.length === 0) return;
    if (Date.now() > deadline)
      throw new Error(
        `the bench database is still busy after 30 s: ${running.map((r) => r.query).join(' | ')}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function measure(setup: Setup, side: Side, body: string): Promise<Sample> {
  await quiesce(setup.probe, setup.dataset.database);
  const dbBefore = await backendCpu(setup.probe, setup.dataset.database);
  const cpuBefore = cpuSeconds(side.pid);
  const report = await setup.loader.run({
    url: side.url,
    body,
    headers: side.headers,
    connections: setup.connections,
    seconds: setup.seconds,
  });
  const cpu = cpuSeconds(side.pid) - cpuBefore;
  const dbAfter = await backendCpu(setup.probe, setup.dataset.database);
  let db = 0;
  for (const [pid, seconds] of dbAfter) db += seconds - (dbBefore.get(pid) ?? 0);
  if (report.failures)
    throw new Error(`${side.name}: ${report.failures} failed requests (${report.failureKinds})`);
  const requests = Math.max(1, report.requests);
  return {
    rps: report.requests / report.seconds,
    p50: report.p50,
    p99: report.p99,
    cpu: (cpu * 1000) / requests,
    db: (db * 1000) / requests,
  };
}

/** The request body of `op` for `side` (page 2 continues after that side's own first page). */
async function bodyFor(side: Side, op: Op): Promise<string> {
  if (!op.page2) return side.body(op);
  return side.body(op, side.after(await answer(side, side.body({ ...op, page2: false }))));
}

async function answer(side: Side, body: string): Promise<any> {
  const token = side.headers.authorization?.replace(/^Bearer /, '');
  const { status, json } = await postJson(side.url, JSON.parse(body), token);
  if (status !== 200 || json.errors) throw new Error(`${side.name}: ${status} ${JSON.stringify(json)}`);
  return json;
}

/**
 * Every side must give the same records with the same instruments (or the same counts); a rolling
 * window may move between the requests, so up to three tries. Returns each side's response size.
 */
async function checkAgreement(sides: Side[], op: Op): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    const answers = await Promise.all(sides.map(async (side) => answer(side, await bodyFor(side, op))));
    const digests = answers.map((json, index) => sides[index]!.digest(op, json));
    if (digests.every((digest) => digest === digests[0]) && digests[0] !== '')
      return answers
        .map((json, index) => `${sides[index]!.name} ${(JSON.stringify(json).length / 1024).toFixed(1)} KB`)
        .join(', ');
    if (attempt === 3) throw new Error(`${op.label}: the servers' answers differ:\n${digests.join('\n')}`);
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

function medianSample(samples: Sample[]): Sample {
  const of = (key: keyof Sample) => median(samples.map((s) => s[key]));
  return { rps: of('rps'), p50: of('p50'), p99: of('p99'), cpu: of('cpu'), db: of('db') };
}

export const describe = (s: Sample) =>
  `${s.rps.toFixed(0)} req/s, p50 ${s.p50.toFixed(0)} ms, p99 ${s.p99.toFixed(0)} ms, ` +
  `${s.cpu.toFixed(2)} ms CPU/request (+${s.db.toFixed(2)} ms in PostgreSQL)`;

const figures = (s: Sample) =>
  `${s.rps.toFixed(0)} req/s, p50 ${s.p50.toFixed(0)} ms, p99 ${s.p99.toFixed(0)} ms`;

/** The op's line for stdout and its rows: the tab's document, and (where measured) the equal-work one. */
function report(scenario: string, op: Op, results: Map<string, Sample>): ScenarioReport {
  const service = results.get('service')!;
  const reference = results.has('PostGraphile') ? 'PostGraphile' : 'raw pg';
  const baseline = results.get(reference)!;
  const others = [...results].filter(([name]) => name !== 'service');
  const line =
    `${scenario}: ${(service.rps / baseline.rps).toFixed(2)}x of ${reference} req/s ` +
    `(${op.label}: service ${describe(service)}) — ` +
    others.map(([name, sample]) => `${name} ${describe(sample)}`).join('; ');
  const rows: BenchRow[] = [
    {
      row: `${scenario}: ${op.label}`,
      ratio: service.rps / baseline.rps,
      of: `${reference} req/s`,
      better: 'higher',
      figures: `${figures(service)}, +${service.db.toFixed(2)} ms PostgreSQL; ${reference} ${figures(baseline)}`,
    },
  ];
  // The same work on both sides: the service asked exactly PostGraphile's fields (a second line, not the goal).
  const sameFields = results.get(SAME_FIELDS_AS_PEER);
  if (sameFields && reference === 'PostGraphile')
    rows.push({
      row: `${scenario}: ${op.label}, equal work`,
      ratio: sameFields.rps / baseline.rps,
      of: 'PostGraphile req/s',
      better: 'higher',
      figures: figures(sameFields),
    });
  return { lines: [line], rows };
}

interface Options {
  databaseUrl: string;
  quick?: boolean;
}

async function startSides(dataset: BrowseDataset, withPeer: boolean) {
  const closers: (() => Promise<void>)[] = [];
  const sides: Side[] = [];
  const service = await startServiceProcess(dataset.url);
  closers.push(() => service.close());
  sides.push(serviceSide(service.url, service.child.pid!));
  if (withPeer) sides.push(serviceWithPeerFieldsSide(service.url, service.child.pid!));
  // BENCH_SERVICE_VARIANT (support.ts): a second service, measured in the same rounds.
  const variant = serviceVariant();
  if (variant) {
    const other = await startServiceProcess(dataset.url, variant.env, variant.built, variant.nodeArgs);
    closers.push(() => other.close());
    sides.push(serviceSide(other.url, other.child.pid!, `service[${variant.label}]`));
  }
  if (withPeer) {
    if (!existsSync(path.join(here, 'peers/node_modules/postgraphile')))
      throw new Error('PostGraphile (the browse peer) is not installed: run `npm run bench:peers` first');
    const peer = await startListeningProcess([path.join(here, 'peers/postgraphile-server.mjs'), dataset.url]);
    closers.push(() => peer.close());
    sides.push(postgraphileSide(peer.url, peer.pid, dataset.agentId));
    sides.push(postgraphileSide(peer.url, peer.pid, dataset.agentId, true));
  }
  const floor = await startListeningProcess([
    '--import',
    'tsx',
    path.join(here, 'browse-floor.ts'),
    dataset.url,
  ]);
  closers.push(() => floor.close());
  sides.push(floorSide(floor.url, floor.pid, dataset.agentId));
  return { sides, close: () => Promise.all(closers.map((close) => close())) };
}

/** Warm-up (not recorded), then `rounds` rounds alternating the sides; each op's medians by side. */
async function runRounds(setup: Setup, sides: Side[], ops: Op[], rounds: number, warmup: number) {
  const serving = (op: Op) => sides.filter((side) => side.supports(op));
  const load = async (side: Side, op: Op, seconds: number) =>
    setup.loader.run({
      url: side.url,
      body: await bodyFor(side, op),
      headers: side.headers,
      connections: setup.connections,
      seconds,
    });
  if (warmup) for (const op of ops) for (const side of serving(op)) await load(side, op, warmup);
  const samples = new Map<string, Sample[]>();
  const key = (op: Op, side: Side) => `${op.key}\u0000${side.name}`;
  for (let round = 0; round < rounds; round++) {
    for (const op of ops) {
      const present = serving(op);
      // Rotate who goes first, so no server always follows the same one.
      const order = [...present.slice(round % present.length), ...present.slice(0, round % present.length)];
      for (const side of order) {
        const sample = await measure(setup, side, await bodyFor(side, op));
        setup.progress(`round ${round + 1}, ${op.label}, ${side.name}: ${describe(sample)}`);
        samples.set(key(op, side), [...(samples.get(key(op, side)) ?? []), sample]);
      }
    }
  }
  return ops.map((op) => ({
    op,
    results: new Map(serving(op).map((side) => [side.name, medianSample(samples.get(key(op, side))!)])),
  }));
}

/**
 * Checks that the sides agree on every op, then measures them (warm-up, alternating rounds) on the
 * dataset's database; `scenario` prefixes the progress lines. Each op's medians by side name.
 */
export async function measureSides(
  scenario: string,
  dataset: BrowseDataset,
  sides: Side[],
  ops: Op[],
  quick: boolean,
): Promise<{ op: Op; results: Map<string, Sample> }[]> {
  const number = (name: string, full: number, small: number) =>
    Number(process.env[name] || (quick ? small : full));
  const connections = number('BENCH_BROWSE_CONNECTIONS', 32, 2);
  const seconds = number('BENCH_BROWSE_SECONDS', 15, 0.5);
  const rounds = number('BENCH_BROWSE_ROUNDS', 3, 1);
  const warmup = number('BENCH_BROWSE_WARMUP_SECONDS', 5, 0);
  const progress = (message: string) => process.stderr.write(`${scenario}: ${message}\n`);
  const probe = new pg.Client({ connectionString: dataset.url });
  await probe.connect();
  const loader = forkLoader();
  try {
    for (const op of ops) {
      const sizes = await checkAgreement(
        sides.filter((side) => side.supports(op)),
        op,
      );
      progress(`${op.label}: the servers agree; response sizes ${sizes}`);
    }
    progress(
      `${dataset.records} records; ${connections} connections, ${seconds} s, ${rounds} ` +
        `rounds; load average ${loadAverage()}`,
    );
    const setup: Setup = { dataset, loader, probe, connections, seconds, progress };
    const measured = await runRounds(setup, sides, ops, rounds, warmup);
    progress(`done; load average ${loadAverage()}`);
    return measured;
  } finally {
    loader.close();
    await probe.end();
  }
}

/** `browse` (the four page reads, PostGraphile included) or `types` (type counts; service and raw pg). */
export async function runBrowseBench(
  scenario: 'browse' | 'types',
  options: Options,
): Promise<ScenarioReport> {
  const quick = options.quick ?? false;
  const dataset = await prepareBrowseDataset(options.databaseUrl, {
    quick,
    log: (message) => process.stderr.write(`${message}\n`),
  });
  const { sides, close } = await startSides(dataset, scenario === 'browse');
  try {
    // BENCH_BROWSE_OPS=first,page2: only those operations (keys of BROWSE_OPS).
    const only = process.env.BENCH_BROWSE_OPS?.split(',');
    const ops =
      scenario === 'browse' ? BROWSE_OPS.filter((op) => !only || only.includes(op.key)) : [TYPES_OP];
    const measured = await measureSides(scenario, dataset, sides, ops, quick);
    return mergeReports(measured.map(({ op, results }) => report(scenario, op, results)));
  } finally {
    await close();
  }
}

// fanout: graphql-ws subscribers of one agent while records are written at a fixed rate.
// Latency is commit-to-receive: a record's createdAt (stamped just before its commit, same machine
// clock) to its arrival at each subscriber. The subscribers live in their own processes
// (fanout-client.ts), which report their CPU; the server's CPU and RSS are read from /proc.
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ClientCommand, ClientReport } from './fanout-client.js';
import { BENCH_ADMIN_TOKEN, benchDatabase, gqlRequest, percentile, startServiceProcess } from './support.js';

const CLIENT_PROCESSES = 2;
const here = path.dirname(fileURLToPath(import.meta.url));
const CLOCK_TICKS_PER_SECOND = 100;

interface Client {
  child: ChildProcess;
  request<T>(command: ClientCommand): Promise<T>;
  close(): Promise<void>;
}

function forkClient(): Client {
  const child = fork(path.join(here, 'fanout-client.ts'), [], { execArgv: ['--import', 'tsx'] });
  return {
    child,
    request: <T>(command: ClientCommand) =>
      new Promise<T>((resolve, reject) => {
        child.once('message', (message: T & { error?: string }) =>
          message.error ? reject(new Error(message.error)) : resolve(message),
        );
        child.send(command);
      }),
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.send({ cmd: 'close' } satisfies ClientCommand);
      }),
  };
}

function rssMb(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
}

/** CPU seconds (user + system) a process has used. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

/** Progress on stderr (the figures go to stdout). */
const progress = (message: string) => process.stderr.write(`fanout: ${message}\n`);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One agent on `instances` service processes (over Redis when several), its run and operator tokens. */
async function startFleet(databaseUrl: string, instances: number) {
  const url = await benchDatabase(databaseUrl, 'memory_bench_fanout', true);
  const env = {
    MAX_CONNECTIONS_PER_TOKEN: '20000',
    ...(instances > 1 ? { REDIS_URL: process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379' } : {}),
  };
  const services: Awaited<ReturnType<typeof startServiceProcess>>[] = [];
  for (let i = 0; i < instances; i++) services.push(await startServiceProcess(url, env));
  const admin = <T>(query: string, variables: Record<string, unknown> = {}) =>
    gqlRequest<T>(services[0]!.url, BENCH_ADMIN_TOKEN, query, variables);
  const { createAgent } = await admin<{ createAgent: { id: string } }>(
    'mutation { createAgent(input: { name: "fanout" }) { id } }',
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
  return { services, runToken: startRun.token, operatorToken: createOperatorToken.token };
}
type Fleet = Awaited<ReturnType<typeof startFleet>>;

async function openSubscriptions(fleet: Fleet): Promise<number> {
  let open = 0;
  for (const service of fleet.services) {
    const text = await (await fetch(`${service.url}/metrics`)).text();
    open += Number(/^memory_subscriptions_open (\d+)/m.exec(text)?.[1] ?? 0);
  }
  return open;
}

/** Opens `active` + `idle` subscribers spread over the client processes (and the instances). */
async function subscribe(fleet: Fleet, clients: Client[], active: number, idle: number): Promise<void> {
  await Promise.all(
    clients.map((client, i) => {
      const share = (n: number) => Math.floor(n / clients.length) + (i < n % clients.length ? 1 : 0);
      const service = fleet.services[i % fleet.services.length]!;
      return client.request({
        cmd: 'open',
        url: service.url,
        token: fleet.operatorToken,
        active: share(active),
        idle: share(idle),
      });
    }),
  );
  // Every subscription has joined its agent's feed: nothing written from now on can be missed.
  for (let waited = 0; (await openSubscriptions(fleet)) < active + idle; waited += 100) {
    if (waited > 120_000) throw new Error('subscriptions did not open within 120 s');
    await sleep(100);
  }
}

/** Writes `rate` records per second for `seconds` through the instances in turn; the line of the run. */
async function measure(fleet: Fleet, clients: Client[], rate: number, seconds: number, label: string) {
  await Promise.all(clients.map((client) => client.request({ cmd: 'reset' })));
  const pids = fleet.services.map((service) => service.child.pid!);
  const serverCpuBefore = pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  const total = rate * seconds;
  const started = Date.now();
  const writes: Promise<unknown>[] = [];
  for (let n = 0; n < total; n++) {
    const wait = started + (n * 1000) / rate - Date.now();
    if (wait > 0) await sleep(wait);
    const service = fleet.services[n % fleet.services.length]!;
    writes.push(
      gqlRequest(
        service.url,
        fleet.runToken,
        'mutation($c: String!) { createMemory(input: { type: "tick", scope: AGENT, content: $c }) { __typename } }',
        { c: `tick ${n}` },
      ),
    );
  }
  await Promise.all(writes);
  const elapsed = (Date.now() - started) / 1000;
  const serverCpu = pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0) - serverCpuBefore;
  await sleep(3000); // the last deliveries
  const reports = await Promise.all(clients.map((client) => client.request<ClientReport>({ cmd: 'report' })));
  const latencies = reports.flatMap((report) => report.latencies).sort((a, b) => a - b);
  const generatorCpu = reports.reduce((sum, report) => sum + report.cpuSeconds, 0);
  const closed = reports.reduce((sum, report) => sum + report.closed, 0);
  return { label, rate, total, latencies, serverCpu, elapsed, generatorCpu, closed };
}

function line(result: Awaited<ReturnType<typeof measure>>, activeSubscribers: number, rssPer1000: number) {
  const { latencies, total, serverCpu, elapsed } = result;
  const expected = total * activeSubscribers;
  const perDelivery = (serverCpu / Math.max(1, latencies.length)) * 1e6;
  return (
    `fanout: ${result.label}, ${result.rate} writes/s: p50 ${percentile(latencies, 50).toFixed(0)} ms, ` +
    `p99 ${percentile(latencies, 99).toFixed(0)} ms commit-to-receive; ${expected - latencies.length} of ${expected} ` +
    `deliveries lost, ${result.closed} cut off; server CPU ${((100 * serverCpu) / elapsed).toFixed(0)} % ` +
    `(${perDelivery.toFixed(1)} µs per delivery), RSS +${rssPer1000.toFixed(1)} MB per 1,000 connections; ` +
    `load generator CPU ${((100 * result.generatorCpu) / elapsed).toFixed(0)} %`
  );
}

interface Row {
  label: string;
  instances: number;
  active: number;
  idle: number;
  rates: number[];
}

async function runRow(databaseUrl: string, row: Row, seconds: number): Promise<string[]> {
  progress(`${row.label}: starting ${row.instances} instance(s)`);
  const fleet = await startFleet(databaseUrl, row.instances);
  const clients = Array.from({ length: CLIENT_PROCESSES }, forkClient);
  try {
    await sleep(1000);
    const rss = () => fleet.services.reduce((sum, service) => sum + rssMb(service.child.pid!), 0);
    const before = rss();
    progress(`${row.label}: subscribing`);
    await subscribe(fleet, clients, row.active, row.idle);
    await sleep(2000);
    const connections = row.active + row.idle;
    const rssPer1000 = ((rss() - before) * 1000) / connections;
    if (!row.rates.length)
      return [
        `fanout: ${row.label}: ${((rssPer1000 * 1024) / 1000).toFixed(1)} KB server RSS per socket ` +
          `(+${(rss() - before).toFixed(0)} MB for ${connections} sockets)`,
      ];
    const lines = [];
    for (const rate of row.rates) {
      progress(`${row.label}: ${rate} writes/s for ${seconds} s`);
      lines.push(line(await measure(fleet, clients, rate, seconds, row.label), row.active, rssPer1000));
    }
    return lines;
  } finally {
    await Promise.all(clients.map((client) => client.close()));
    for (const service of fleet.services) await service.close();
  }
}

export async function runFanoutBench(options: { databaseUrl: string; quick?: boolean }): Promise<string> {
  const scale = options.quick ? 0.05 : 1;
  const seconds = options.quick ? 2 : Number(process.env.BENCH_FANOUT_SECONDS || 15);
  const n = (count: number) => Math.max(2, Math.round(count * scale));
  const rows: Row[] = [
    { label: `${n(1000)} subscribers`, instances: 1, active: n(1000), idle: 0, rates: [20, 50, 100] },
    {
      label: `${n(5000)} idle + ${n(1000)} active subscribers`,
      instances: 1,
      active: n(1000),
      idle: n(5000),
      rates: [20, 50, 100],
    },
    { label: `${n(10000)} idle sockets`, instances: 1, active: 0, idle: n(10000), rates: [] },
    {
      label: `2 instances over Redis, ${n(2000)} subscribers`,
      instances: 2,
      active: n(2000),
      idle: 0,
      rates: [50],
    },
  ];
  // BENCH_FANOUT_ROWS=<n,…> runs only those rows (1-based), BENCH_FANOUT_RATES=<r,…> only those rates (profiling).
  const only = (name: string) => process.env[name]?.split(',').map(Number);
  const rowNumbers = only('BENCH_FANOUT_ROWS');
  const rates = only('BENCH_FANOUT_RATES');
  const lines: string[] = [];
  for (const [index, row] of rows.entries()) {
    if (rowNumbers && !rowNumbers.includes(index + 1)) continue;
    const chosen = { ...row, rates: rates ? row.rates.filter((rate) => rates.includes(rate)) : row.rates };
    lines.push(...(await runRow(options.databaseUrl, chosen, seconds)));
  }
  return lines.join('\n');
}

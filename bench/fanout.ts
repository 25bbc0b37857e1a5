// fanout: graphql-ws subscribers of one agent while records are written at a fixed rate.
// Latency is commit-to-receive: a record's createdAt (stamped just before its commit, same machine
// clock) to its arrival at each subscriber. The subscribers live in their own processes
// (fanout-client.ts), which report their CPU; the server's CPU and RSS are read from /proc. The
// first row is the floor of the same run: a bare `ws` broadcaster (ws-baseline.ts).
import type { ClientReport } from './fanout-client.js';
import {
  baselineFleet,
  cpuSeconds,
  forkClient,
  fleetRssMb,
  serviceFleet,
  type Client,
  type Fleet,
} from './fanout-fleet.js';
import { percentile } from './support.js';
import { mergeReports, type BenchRow, type ScenarioReport } from './table.js';

const CLIENT_PROCESSES = 2;
/** The one rate of a quick run's rows. */
const QUICK_RATE = 50;

/** Progress on stderr (the figures go to stdout). */
const progress = (message: string) => process.stderr.write(`fanout: ${message}\n`);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function openSubscriptions(fleet: Fleet): Promise<number> {
  let open = 0;
  for (const server of fleet.servers) {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    open += Number(/^memory_subscriptions_open (\d+)/m.exec(text)?.[1] ?? 0);
  }
  return open;
}

/** Opens `active` + `idle` subscribers spread over the client processes (and the instances). */
async function subscribe(fleet: Fleet, clients: Client[], active: number, idle: number): Promise<void> {
  await Promise.all(
    clients.map((client, i) => {
      const share = (n: number) => Math.floor(n / clients.length) + (i < n % clients.length ? 1 : 0);
      return client.request({
        cmd: 'open',
        url: fleet.servers[i % fleet.servers.length]!.url,
        token: fleet.subscriberToken,
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

/** Writes `rate` records per second for `seconds` (through the instances in turn); what arrived. */
async function measure(fleet: Fleet, clients: Client[], rate: number, seconds: number, label: string) {
  await Promise.all(clients.map((client) => client.request({ cmd: 'reset' })));
  const pids = fleet.servers.map((server) => server.pid);
  const serverCpuBefore = pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  const total = rate * seconds;
  const started = Date.now();
  const writes: Promise<unknown>[] = [];
  // A failed write fails the row once the writes are sent (not as an unhandled rejection mid-loop).
  const failed: unknown[] = [];
  for (let n = 0; n < total; n++) {
    const wait = started + (n * 1000) / rate - Date.now();
    if (wait > 0) await sleep(wait);
    writes.push(fleet.write(n).catch((error: unknown) => failed.push(error)));
  }
  await Promise.all(writes);
  if (failed.length) throw new Error(`${failed.length} of ${total} writes failed`, { cause: failed[0] });
  const elapsed = (Date.now() - started) / 1000;
  const serverCpu = pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0) - serverCpuBefore;
  await sleep(Math.min(3000, seconds * 2000)); // the last deliveries (a quick run's are few)
  const reports = await Promise.all(clients.map((client) => client.request<ClientReport>({ cmd: 'report' })));
  const latencies = reports.flatMap((report) => report.latencies).sort((a, b) => a - b);
  const generatorCpu = reports.reduce((sum, report) => sum + report.cpuSeconds, 0);
  const closed = reports.reduce((sum, report) => sum + report.closed, 0);
  const ended = reports.reduce((sum, report) => sum + report.ended, 0);
  const firstEnd = reports.find((report) => report.firstEnd)?.firstEnd ?? null;
  return { label, rate, total, latencies, serverCpu, elapsed, generatorCpu, closed, ended, firstEnd };
}

type Measured = Awaited<ReturnType<typeof measure>>;
/** Server CPU per delivery (µs), writes included. */
const cpuPerDelivery = (result: Measured) => (result.serverCpu / Math.max(1, result.latencies.length)) * 1e6;

/** A rate's row: server CPU per delivery against the bare-ws baseline's at the same rate (lower is better). */
function rowOf(result: Measured, activeSubscribers: number, baseline?: Measured): BenchRow {
  const { latencies, total } = result;
  const lost = total * activeSubscribers - latencies.length;
  return {
    row: `fanout: ${result.label}, ${result.rate} writes/s`,
    ratio: baseline ? cpuPerDelivery(result) / cpuPerDelivery(baseline) : null,
    of: baseline ? 'bare ws CPU per delivery' : 'none: the ceiling the service rows are compared with',
    better: 'lower',
    figures:
      `p50 ${percentile(latencies, 50).toFixed(0)} ms, p99 ${percentile(latencies, 99).toFixed(0)} ms, ` +
      `${cpuPerDelivery(result).toFixed(1)} µs CPU/delivery, ${lost} lost, ${result.closed} cut off`,
  };
}

function line(result: Measured, activeSubscribers: number, rssPer1000: number, baseline?: Measured) {
  const { latencies, total, serverCpu, elapsed } = result;
  const expected = total * activeSubscribers;
  const perDelivery = cpuPerDelivery(result);
  const ratio = baseline
    ? `, ${(perDelivery / cpuPerDelivery(baseline)).toFixed(2)}x the bare-ws baseline's`
    : '';
  return (
    `fanout: ${result.label}, ${result.rate} writes/s: p50 ${percentile(latencies, 50).toFixed(0)} ms, ` +
    `p99 ${percentile(latencies, 99).toFixed(0)} ms commit-to-receive; ${expected - latencies.length} of ${expected} ` +
    `deliveries lost, ${result.closed} cut off, ${result.ended} subscriptions ended by the server` +
    `${result.firstEnd ? ` (first: ${result.firstEnd})` : ''}; server CPU ${((100 * serverCpu) / elapsed).toFixed(0)} % ` +
    `(${perDelivery.toFixed(1)} µs per delivery${ratio}), RSS +${rssPer1000.toFixed(1)} MB per 1,000 connections; ` +
    `load generator CPU ${((100 * result.generatorCpu) / elapsed).toFixed(0)} %`
  );
}

interface Row {
  label: string;
  /** 0: the bare `ws` baseline. */
  instances: number;
  active: number;
  idle: number;
  rates: number[];
}

/** The rates' results of the baseline row, which the service rows are compared with. */
const baselines = new Map<number, Measured>();

interface Memory {
  rssMb: number;
  heapMb: number;
}

/** Every server's garbage collected, then their RSS and V8 heap in use; null when the fleet cannot collect. */
async function memoryAfterCollection(fleet: Fleet): Promise<Memory | null> {
  if (!fleet.servers.every((server) => server.collectGarbage)) return null;
  let heapMb = 0;
  for (const server of fleet.servers) heapMb += (await server.collectGarbage!()) / 2 ** 20;
  return { rssMb: fleetRssMb(fleet), heapMb };
}

/**
 * The memory row: RSS per socket after a full collection before and after the sockets open (what
 * the process keeps), with the V8 heap's share and the RSS growth without the second collection (the young
 * generation's garbage counted in; up to 2 × 64 MB with npm start's semi-spaces) beside it.
 */
function memoryReport(row: Row, sockets: number, rawRssMb: number, before: Memory, after: Memory) {
  const kb = (mb: number) => ((mb * 1024) / sockets).toFixed(1);
  const figures =
    `${kb(after.rssMb - before.rssMb)} KB server RSS per socket after a full collection ` +
    `(${kb(after.heapMb - before.heapMb)} KB of it V8 heap); ${kb(rawRssMb)} KB without one`;
  return {
    lines: [
      `fanout: ${row.label}: ${figures} (+${(after.rssMb - before.rssMb).toFixed(0)} MB for ${sockets} sockets)`,
    ],
    rows: [{ row: `fanout: ${row.label}`, ratio: null, of: 'none', better: 'lower' as const, figures }],
  };
}

async function runRow(databaseUrl: string, row: Row, seconds: number): Promise<ScenarioReport> {
  progress(`${row.label}: starting`);
  // A row without rates measures memory: its servers let the bench collect their garbage.
  const fleet = row.instances
    ? await serviceFleet(databaseUrl, row.instances, !row.rates.length)
    : await baselineFleet();
  const clients = Array.from({ length: CLIENT_PROCESSES }, forkClient);
  // The fleet settles before the RSS baseline and after subscribing (1 s and 2 s; shorter when a
  // quick run measures for less than that).
  const settle = (ms: number) => sleep(Math.min(ms, seconds * 2000));
  try {
    await settle(1000);
    const rss = () => fleetRssMb(fleet);
    const collected = await memoryAfterCollection(fleet);
    const before = collected?.rssMb ?? rss();
    progress(`${row.label}: subscribing`);
    await subscribe(fleet, clients, row.active, row.idle);
    await settle(2000);
    const connections = row.active + row.idle;
    const rssPer1000 = ((rss() - before) * 1000) / connections;
    if (collected) {
      const raw = rss() - before;
      return memoryReport(row, connections, raw, collected, (await memoryAfterCollection(fleet))!);
    }
    const report: ScenarioReport = { lines: [], rows: [] };
    for (const rate of row.rates) {
      progress(`${row.label}: ${rate} writes/s for ${seconds} s`);
      const result = await measure(fleet, clients, rate, seconds, row.label);
      if (!row.instances) baselines.set(rate, result);
      const baseline = row.instances ? baselines.get(rate) : undefined;
      report.lines.push(line(result, row.active, rssPer1000, baseline));
      report.rows.push(rowOf(result, row.active, baseline));
    }
    return report;
  } finally {
    await Promise.all(clients.map((client) => client.close()));
    await fleet.close();
  }
}

export async function runFanoutBench(options: {
  databaseUrl: string;
  quick?: boolean;
}): Promise<ScenarioReport> {
  const scale = options.quick ? 0.05 : 1;
  const seconds = options.quick ? 0.5 : Number(process.env.BENCH_FANOUT_SECONDS || 15);
  const n = (count: number) => Math.max(2, Math.round(count * scale));
  const rows: Row[] = [
    {
      label: `bare ws baseline, ${n(1000)} subscribers`,
      instances: 0,
      active: n(1000),
      idle: 0,
      rates: [20, 50, 100],
    },
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
  const reports: ScenarioReport[] = [];
  for (const [index, row] of rows.entries()) {
    if (rowNumbers && !rowNumbers.includes(index + 1)) continue;
    // Quick: every row, at one rate (50, which every measured row has, so the ratios still resolve).
    const wanted = rates ?? (options.quick ? [QUICK_RATE] : null);
    const chosen = { ...row, rates: wanted ? row.rates.filter((rate) => wanted.includes(rate)) : row.rates };
    const report = await runRow(options.databaseUrl, chosen, seconds);
    // Each row's figures as soon as it ends: a later row that fails does not take them with it.
    for (const text of report.lines) process.stdout.write(`${text}\n`);
    reports.push({ lines: [], rows: report.rows });
  }
  return mergeReports(reports);
}

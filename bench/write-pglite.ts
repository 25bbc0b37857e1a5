// write on the embedded database: the write bench's load (16 clients in a closed
// loop, each sending createMemory with 2 targets and 2 links, write.ts) against the service on
// PGlite (a fresh DATA_DIR) and the same service on PostgreSQL (a fresh database), in the same run,
// in alternating rounds (medians). CPU per write is each service process's; PGlite's database runs
// inside it, PostgreSQL's backends are counted apart.
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startPair, startPgliteServiceProcess } from './browse-pglite.js';
import { backendCpu } from './browse.js';
import { cpuSeconds } from './fanout-fleet.js';
import { benchDatabase, closedLoop, percentile, startServiceProcess } from './support.js';
import type { BenchRow, ScenarioReport } from './table.js';
import { WRITE_CLIENTS, prepareWriters } from './write.js';

const DATABASE = 'memory_bench_write_pglite';

interface Sample {
  ops: number;
  p50: number;
  p99: number;
  /** Service process CPU ms per write. */
  cpu: number;
  /** PostgreSQL backends' CPU ms per write (0 for PGlite). */
  db: number;
}

interface Target {
  name: string;
  pid: number;
  write(client: number): Promise<void>;
}

async function measure(target: Target, seconds: number, probe: pg.Client): Promise<Sample> {
  const dbBefore = await backendCpu(probe, DATABASE);
  const cpuBefore = cpuSeconds(target.pid);
  const { opsPerSecond, latencies } = await closedLoop(WRITE_CLIENTS, seconds, target.write);
  const cpu = cpuSeconds(target.pid) - cpuBefore;
  let db = 0;
  for (const [pid, after] of await backendCpu(probe, DATABASE)) db += after - (dbBefore.get(pid) ?? 0);
  const writes = Math.max(1, latencies.length);
  return {
    ops: opsPerSecond,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    cpu: (cpu * 1000) / writes,
    db: (db * 1000) / writes,
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const medianOf = (samples: Sample[]): Sample => {
  const of = (key: keyof Sample) => median(samples.map((s) => s[key]));
  return { ops: of('ops'), p50: of('p50'), p99: of('p99'), cpu: of('cpu'), db: of('db') };
};
const figures = (s: Sample) =>
  `${s.ops.toFixed(0)} ops/s, p50 ${s.p50.toFixed(1)} ms, p99 ${s.p99.toFixed(1)} ms, ${s.cpu.toFixed(2)} ms CPU/write`;

export async function runWritePgliteBench(options: {
  databaseUrl: string;
  seconds: number;
  quick?: boolean;
}): Promise<ScenarioReport> {
  const rounds = Number(process.env.BENCH_WRITE_ROUNDS || (options.quick ? 1 : 3));
  const progress = (message: string) => process.stderr.write(`write (PGlite): ${message}\n`);
  const started = performance.now();
  const dataDir = path.join(os.tmpdir(), 'memory-bench-write-pglite');
  await rm(dataDir, { recursive: true, force: true });
  let url = '';
  // Both empty: the service on PGlite migrates its new folder while the PostgreSQL database is made.
  const [onPglite, onPostgres] = await startPair(
    startPgliteServiceProcess(dataDir),
    benchDatabase(options.databaseUrl, DATABASE, true).then((made) => startServiceProcess((url = made))),
  );
  const probe = new pg.Client({ connectionString: url });
  await probe.connect();
  try {
    const [pgliteWriters, postgresWriters] = await Promise.all([
      prepareWriters(onPglite.url),
      prepareWriters(onPostgres.url),
    ]);
    progress(`both services up with their writers in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const targets: Target[] = [
      { name: 'service on PGlite', pid: onPglite.child.pid!, write: pgliteWriters.write },
      { name: 'service on PostgreSQL', pid: onPostgres.child.pid!, write: postgresWriters.write },
    ];
    // Warm-up (none in a quick run, whose figures mean nothing anyway).
    if (!options.quick) for (const target of targets) await closedLoop(WRITE_CLIENTS, 2, target.write);
    const samples = new Map<string, Sample[]>();
    for (let round = 0; round < rounds; round++) {
      // Alternate who goes first (the tables grow as the rounds write).
      for (const target of round % 2 ? [...targets].reverse() : targets) {
        const sample = await measure(target, options.seconds, probe);
        progress(
          `round ${round + 1}, ${target.name}: ${figures(sample)} (+${sample.db.toFixed(2)} ms in PostgreSQL)`,
        );
        samples.set(target.name, [...(samples.get(target.name) ?? []), sample]);
      }
    }
    const pglite = medianOf(samples.get('service on PGlite')!);
    const postgres = medianOf(samples.get('service on PostgreSQL')!);
    const line =
      `write (PGlite): ${(pglite.ops / postgres.ops).toFixed(2)}x ops/s (PGlite vs the service on PostgreSQL) — ` +
      `${WRITE_CLIENTS} clients, createMemory with 2 targets and 2 links, ${options.seconds} s × ${rounds} rounds: ` +
      `service on PGlite ${figures(pglite)} (its database included, in-process); ` +
      `service on PostgreSQL ${figures(postgres)} (+${postgres.db.toFixed(2)} ms in PostgreSQL)`;
    const row: BenchRow = {
      row: 'write (PGlite)',
      ratio: pglite.ops / postgres.ops,
      of: 'the service on PostgreSQL ops/s',
      better: 'higher',
      figures: figures(pglite),
    };
    return { lines: [line], rows: [row] };
  } finally {
    await probe.end();
    await Promise.all([onPglite.close(), onPostgres.close()]);
    await rm(dataDir, { recursive: true, force: true });
  }
}

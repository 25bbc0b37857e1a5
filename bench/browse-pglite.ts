// browse / types on the embedded database: the service on PGlite (DATA_DIR, its
// database inside its own process) against the same service on PostgreSQL, in the same run, on the
// same rows (browse-pglite-data.ts), asked the browse bench's documents (browse-sides.ts) by its
// load generator in alternating rounds (browse.ts). PostGraphile and the raw-pg floor need a
// PostgreSQL server, so the service on PostgreSQL is the reference here.
import { cp, rm } from 'node:fs/promises';
import path from 'node:path';
import { LOCK_FILE_NAME } from '../src/data-dir-lock.js';
import { prepareBrowseDataset, type BrowseDataset } from './browse-data.js';
import { preparePgliteDataset } from './browse-pglite-data.js';
import { BROWSE_OPS, TYPES_OP, serviceSide, type Op, type Side } from './browse-sides.js';
import { describe, measureSides, type Sample } from './browse.js';
import { serviceVariant, startServiceProcess, type ServiceVariant } from './support.js';
import { mergeReports, type BenchRow, type ScenarioReport } from './table.js';

const ON_PGLITE = 'service on PGlite';
const ON_POSTGRES = 'service on PostgreSQL';

/** The service on a PGlite folder: no DATABASE_URL, DATA_DIR set (as the embedded mode runs). */
export const startPgliteServiceProcess = (dataDir: string) => startServiceProcess('', { DATA_DIR: dataDir });

/** Starts both servers at once; when one fails to start, stops the other and throws. */
export async function startPair<A extends { close(): Promise<void> }, B extends { close(): Promise<void> }>(
  a: Promise<A>,
  b: Promise<B>,
): Promise<[A, B]> {
  const [first, second] = await Promise.allSettled([a, b]);
  if (first.status === 'fulfilled' && second.status === 'fulfilled') return [first.value, second.value];
  await Promise.all([first, second].map((r) => (r.status === 'fulfilled' ? r.value.close() : undefined)));
  throw [first, second].find((r): r is PromiseRejectedResult => r.status === 'rejected')!.reason;
}

/** The service on PGlite with `variant`, on a fresh copy of the folder (one process per folder, S5). */
async function startVariantOnCopy(dataDir: string, variant: ServiceVariant) {
  const copy = `${dataDir}-variant`;
  await rm(copy, { recursive: true, force: true });
  await cp(dataDir, copy, { recursive: true, filter: (source) => path.basename(source) !== LOCK_FILE_NAME });
  return startServiceProcess('', { ...variant.env, DATA_DIR: copy }, variant.built, variant.nodeArgs);
}

/**
 * Both services on the same rows; with BENCH_SERVICE_VARIANT (support.ts) a third, the service on
 * PGlite with the variant, on a copy of the folder (one process per folder, S5).
 */
async function startBoth(dataset: BrowseDataset, dataDir: string) {
  const [onPglite, onPostgres] = await startPair(
    startPgliteServiceProcess(dataDir),
    startServiceProcess(dataset.url),
  );
  const sides: Side[] = [
    { ...serviceSide(onPglite.url, onPglite.child.pid!), name: ON_PGLITE },
    { ...serviceSide(onPostgres.url, onPostgres.child.pid!), name: ON_POSTGRES },
  ];
  const closers = [onPglite.close, onPostgres.close];
  const variant = serviceVariant();
  if (variant) {
    // Whatever fails (the copy, the start), the two started services stop with it.
    const other = await startVariantOnCopy(dataDir, variant).catch(async (error: unknown) => {
      await Promise.all(closers.map((close) => close()));
      throw error;
    });
    closers.push(other.close);
    sides.push({ ...serviceSide(other.url, other.child.pid!), name: `${ON_PGLITE}[${variant.label}]` });
  }
  return { sides, close: () => Promise.all(closers.map((close) => close())) };
}

/** PGlite runs inside the service's process: its CPU per request is the service's and the database's. */
const describePglite = (s: Sample) =>
  `${s.rps.toFixed(0)} req/s, p50 ${s.p50.toFixed(0)} ms, p99 ${s.p99.toFixed(0)} ms, ` +
  `${s.cpu.toFixed(2)} ms CPU/request (its database included, in-process)`;

function report(scenario: string, records: number, op: Op, results: Map<string, Sample>): ScenarioReport {
  const pglite = results.get(ON_PGLITE)!;
  const postgres = results.get(ON_POSTGRES)!;
  const ratio = pglite.rps / postgres.rps;
  // A variant's side (BENCH_SERVICE_VARIANT) is printed beside them, never recorded in the table.
  const variants = [...results]
    .filter(([name]) => name !== ON_PGLITE && name !== ON_POSTGRES)
    .map(
      ([name, sample]) => `; ${name} ${(sample.rps / postgres.rps).toFixed(2)}x, ${describePglite(sample)}`,
    );
  const line =
    `${scenario} (PGlite): ${ratio.toFixed(2)}x req/s (PGlite vs the service on PostgreSQL) — ` +
    `${op.label}, ${records} records: ${ON_PGLITE} ${describePglite(pglite)}; ${ON_POSTGRES} ${describe(postgres)}` +
    variants.join('');
  const row: BenchRow = {
    row: `${scenario} (PGlite): ${op.label}`,
    ratio,
    of: 'the service on PostgreSQL req/s',
    better: 'higher',
    figures: `${pglite.rps.toFixed(0)} req/s, p50 ${pglite.p50.toFixed(0)} ms, p99 ${pglite.p99.toFixed(0)} ms (${records} records)`,
  };
  return { lines: [line], rows: [row] };
}

/** `browse-pglite` (the four page reads) or `types-pglite` (type counts), on the bench:data dataset (quick: its quick size). */
export async function runBrowsePgliteBench(
  scenario: 'browse' | 'types',
  options: { databaseUrl: string; quick?: boolean },
): Promise<ScenarioReport> {
  const quick = options.quick ?? false;
  const log = (message: string) => process.stderr.write(`${message}\n`);
  const dataset = await prepareBrowseDataset(options.databaseUrl, { quick, log });
  const dataDir = await preparePgliteDataset(dataset, log);
  const { sides, close } = await startBoth(dataset, dataDir);
  try {
    const ops = scenario === 'browse' ? BROWSE_OPS : [TYPES_OP];
    const measured = await measureSides(`${scenario} (PGlite)`, dataset, sides, ops, quick);
    return mergeReports(measured.map(({ op, results }) => report(scenario, dataset.records, op, results)));
  } finally {
    await close();
  }
}

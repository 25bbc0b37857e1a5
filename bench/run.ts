// npm run bench [-- browse types write context fanout growth write-pglite browse-pglite types-pglite]
// [-- --quick]: scenarios on PostgreSQL, each printing its lines of ratios; the *-pglite ones measure
// the service on the embedded database (PGlite) against the same service on PostgreSQL.
// BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres) names the server; each
// scenario uses its own database on it (browse and types share the bench:data dataset).
// A run of every scenario (no names, not --quick) records its one table in bench/README.md and the
// README's Performance section; every full or partial run prints a REGRESSION line for each ratio
// more than 10 % worse than the recorded table's, and then exits 1.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  recordTable,
  renderHeadlineTable,
  regressions,
  renderTable,
  startRun,
  type BenchRow,
  type ScenarioReport,
} from './table.js';
import { runWriteBench } from './write.js';

const databaseUrl = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

const args = process.argv.slice(2);
/**
 * --quick: a few connections, a second per measurement and small datasets, to prove the harness runs
 * every scenario end to end (CI); no figure means anything.
 */
const quick = args.includes('--quick');
const named = args.filter((arg) => arg !== '--quick');

const writeSeconds = Number(process.env.BENCH_SECONDS || (quick ? 0.5 : 10));

type Scenario = () => Promise<ScenarioReport>;
const scenarios: Record<string, Scenario> = {
  browse: async () => (await import('./browse.js')).runBrowseBench('browse', { databaseUrl, quick }),
  types: async () => (await import('./browse.js')).runBrowseBench('types', { databaseUrl, quick }),
  write: () => runWriteBench({ databaseUrl, seconds: writeSeconds }),
  // context and fanout live in their own files (they load data / open connections); a quick context
  // loads two weeks instead of a year (its loader is proven in CI, its figures mean nothing).
  context: async () => (await import('./context.js')).runContextBench({ databaseUrl, quick }),
  fanout: async () => (await import('./fanout.js')).runFanoutBench({ databaseUrl, quick }),
  // D5: the reads and the write at 0.5 M, 2 M and 8 M records of history, and a boundary burst.
  growth: async () => (await import('./growth.js')).runGrowthBench({ databaseUrl, quick }),
  // The same scenarios with the service on PGlite (its reference: the service on PostgreSQL).
  'write-pglite': async () =>
    (await import('./write-pglite.js')).runWritePgliteBench({ databaseUrl, seconds: writeSeconds, quick }),
  'browse-pglite': async () =>
    (await import('./browse-pglite.js')).runBrowsePgliteBench('browse', { databaseUrl, quick }),
  'types-pglite': async () =>
    (await import('./browse-pglite.js')).runBrowsePgliteBench('types', { databaseUrl, quick }),
};

const unknown = named.filter((name) => !scenarios[name]);
if (unknown.length) {
  console.error(`unknown scenario ${unknown.join(', ')}; choose from ${Object.keys(scenarios).join(', ')}`);
  process.exit(2);
}
const wanted = named.length ? named : Object.keys(scenarios);
const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const tableFiles = [path.join(root, 'bench/README.md'), path.join(root, 'README.md')];
// Before any scenario runs: a full run must be able to record its table at the end.
if (!quick) for (const file of tableFiles) await recordTable(file, null, true);
/**
 * --quick's figures mean nothing, so its scenarios run in lanes at once (half of CI's bench time);
 * a full run measures one scenario at a time. Scenarios that share a dataset share a lane, in order:
 * the browse family reads bench:data's dataset and one PGlite folder. Each server has its own
 * keep-alive agent (bench/support.ts), so one lane's stop does not reset another's sockets.
 */
const QUICK_LANES = [
  ['browse', 'types', 'browse-pglite', 'types-pglite'],
  ['growth'],
  ['context'],
  ['fanout'],
  ['write', 'write-pglite'],
];
// A scenario no lane names runs in a lane of its own.
const lanes = quick
  ? [...QUICK_LANES, ...wanted.filter((name) => !QUICK_LANES.flat().includes(name)).map((name) => [name])]
      .map((lane) => lane.filter((name) => wanted.includes(name)))
      .filter((lane) => lane.length)
  : [wanted];
const run = startRun();
const reports = new Map<string, ScenarioReport>();
// A scenario that fails is reported and the others still run (a long run keeps what it measured);
// the run then records no table and exits 1.
const failures = new Set<string>();
await Promise.all(
  lanes.map(async (lane) => {
    for (const name of lane) {
      try {
        const report = await scenarios[name]!();
        for (const line of report.lines) console.log(line);
        reports.set(name, report);
      } catch (error) {
        failures.add(name);
        console.error(
          `FAILED ${name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
        );
      }
    }
  }),
);
// The table's rows in the order the scenarios were asked for, whichever lane finished first.
const rows: BenchRow[] = wanted.flatMap((name) => reports.get(name)?.rows ?? []);
const failed = wanted.filter((name) => failures.has(name));

const facts = run.finish();
const table = renderTable(rows, facts);
console.log(`\n${table}\n`);
if (failed.length) {
  console.log(`FAILED: ${failed.join(', ')} (no table recorded)`);
  process.exitCode = 1;
} else if (!quick) {
  // Only a run of every row replaces the recorded table; any run is compared with it.
  const everyRow = named.length === 0;
  const recorded = await recordTable(tableFiles[0]!, everyRow ? table : null);
  if (everyRow) await recordTable(tableFiles[1]!, renderHeadlineTable(rows, facts));
  const found = regressions(rows, recorded);
  for (const line of found) console.log(line);
  if (everyRow) console.log('the table is recorded in bench/README.md and README.md ("Performance")');
  if (found.length) process.exitCode = 1;
}

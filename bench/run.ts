// npm run bench [-- write context fanout browse types write-pglite browse-pglite types-pglite]
// [-- --quick]: scenarios on PostgreSQL, each printing one line of ratios (browse: one per operation);
// the *-pglite ones measure the service on the embedded database (PGlite) against the same service on
// PostgreSQL. BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres) names the
// server; each scenario uses its own database on it (browse and types share the bench:data dataset).
import { runWriteBench } from './write.js';

const databaseUrl = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

const args = process.argv.slice(2);
/** --quick: a few connections and seconds, to prove the harness runs (CI); no figure means anything. */
const quick = args.includes('--quick');
const named = args.filter((arg) => arg !== '--quick');

const writeSeconds = Number(process.env.BENCH_SECONDS || (quick ? 2 : 10));

type Scenario = () => Promise<string>;
const scenarios: Record<string, Scenario> = {
  write: () => runWriteBench({ databaseUrl, seconds: writeSeconds }),
  // context and fanout live in their own files (they load data / open connections); context has no
  // quick mode (its ≈2M-record dataset is the point) and is left out of a quick run unless named.
  context: async () => (await import('./context.js')).runContextBench({ databaseUrl }),
  fanout: async () => (await import('./fanout.js')).runFanoutBench({ databaseUrl, quick }),
  browse: async () => (await import('./browse.js')).runBrowseBench('browse', { databaseUrl, quick }),
  types: async () => (await import('./browse.js')).runBrowseBench('types', { databaseUrl, quick }),
  // Issue 14 item 6: the same scenarios with the service on PGlite (its reference: the service on PostgreSQL).
  'write-pglite': async () =>
    (await import('./write-pglite.js')).runWritePgliteBench({ databaseUrl, seconds: writeSeconds, quick }),
  'browse-pglite': async () =>
    (await import('./browse-pglite.js')).runBrowsePgliteBench('browse', { databaseUrl, quick }),
  'types-pglite': async () =>
    (await import('./browse-pglite.js')).runBrowsePgliteBench('types', { databaseUrl, quick }),
};

const wanted = named.length ? named : Object.keys(scenarios).filter((name) => !(quick && name === 'context'));
for (const name of wanted) {
  const scenario = scenarios[name];
  if (!scenario) {
    console.error(`unknown scenario ${name}; choose from ${Object.keys(scenarios).join(', ')}`);
    process.exit(2);
  }
  console.log(await scenario());
}

// npm run bench [-- write context fanout] [-- --quick]: scenarios on PostgreSQL, each printing one line of ratios.
// BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres) names the server; each
// scenario uses its own database on it.
import { runWriteBench } from './write.js';

const databaseUrl = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const seconds = Number(process.env.BENCH_SECONDS || 10);

type Scenario = () => Promise<string>;
const scenarios: Record<string, Scenario> = {
  write: () => runWriteBench({ databaseUrl, seconds }),
  // context and fanout live in their own files (they load data / open connections)
  context: async () => (await import('./context.js')).runContextBench({ databaseUrl }),
  fanout: async () => (await import('./fanout.js')).runFanoutBench({ databaseUrl, quick }),
};

const args = process.argv.slice(2);
/** --quick: a few connections and seconds, to prove the harness runs (CI); no figure means anything. */
const quick = args.includes('--quick');
const named = args.filter((arg) => arg !== '--quick');
const wanted = named.length ? named : Object.keys(scenarios);
for (const name of wanted) {
  const scenario = scenarios[name];
  if (!scenario) {
    console.error(`unknown scenario ${name}; choose from ${Object.keys(scenarios).join(', ')}`);
    process.exit(2);
  }
  console.log(await scenario());
}

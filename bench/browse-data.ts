// The browse bench's dataset (`npm run bench:data [-- --quick]`): 500,000 records over 10 agents,
// one of them holding half, spread evenly over the 90 days before the load, in their own database
// migrated by the service's migrations. Set-based (INSERT … SELECT generate_series), seeded by
// md5 of the record number, so every load is the same data shifted to end at load time.
//
// Record n (0 ≤ n < N): agent 0 ("bench-browse-main") when n mod 18 < 9, else agent n mod 18 − 8;
// createdAt = end − (N − 1 − n) × 90 days / N. r = a 32-bit number from md5(n) picks
//   - the type (r mod 100): market_structure 20 %, funding 15 %, orderflow 15 %, volatility 12 %,
//     sentiment 10 %, momentum 10 %, trading_decision 15 %, review 3 %;
//   - the scope: reviews and half of the sentiment records are AGENT-wide, the rest INSTRUMENTS
//     with one instrument of 20, a quarter of them a second one;
//   - the producer: analysis types one of 4 ANALYSIS producers (15m, 1h, 4h, 1d; the record's
//     timeframe, expiresAt = createdAt + 2 intervals), trading_decision the TRADING producer
//     (each decision links `considered` to the agent's two previous-but-one records), review the
//     REVIEW producer. A run is one producer of one agent in one block of 144 consecutive n
//     (~37 minutes): ~12 records per run of the big agent.
// Each agent's seq follows n. An operator token for the big agent is stored (hashed) with the data;
// everything is one transaction ending with a marker row, so an interrupted load is redone and a
// complete one reused — while its newest record is at most MAX_AGE old, so a rolling 24 h window
// always holds a day of data (else the data is loaded again, ending at the new now). The statements
// are driver-neutral (datasetStatements): browse-pglite-data.ts runs the same ones on PGlite.
import { createHash } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { benchDatabase, loadInOneTransaction, withDatabaseName } from './support.js';

export const FULL_RECORDS = 500_000;
export const QUICK_RECORDS = 20_000;
const DAYS = 90;
const MAX_AGE_HOURS = 6;
export const BROWSE_OPERATOR_TOKEN = 'op_bench_browse_operator_token_of_the_big_agent';
const INSTRUMENTS = [
  'BTC', 'ETH', 'SOL', 'kPEPE', 'DOGE', 'XRP', 'AVAX', 'LINK', 'ARB', 'OP',
  'SUI', 'APT', 'INJ', 'TIA', 'SEI', 'WIF', 'JUP', 'BNB', 'LTC', 'ATOM',
]; // prettier-ignore

export interface BrowseDataset {
  url: string;
  /** The database's name (the bench reads its backends' CPU from pg_stat_activity). */
  database: string;
  agentId: string;
  records: number;
  /** The newest record's createdAt. */
  end: Date;
}

const uuid = (expr: string) => `md5(${expr})::uuid`;
const agentUuid = (a: string) => uuid(`'bench-browse-agent-' || ${a}`);
const memUuid = (n: string) => uuid(`'bench-browse-mem-' || ${n}`);

/** The dataset's statements, to run in one transaction on a migrated database (pg or PGlite). */
export function datasetStatements(records: number, end: Date, days = DAYS): string[] {
  const inst = `(ARRAY[${INSTRUMENTS.map((i) => `'${i}'`).join(',')}])`;
  const since = `'${end.toISOString()}'::timestamptz - interval '${days + 1} days'`;
  const tokenHash = createHash('sha256').update(BROWSE_OPERATOR_TOKEN).digest('hex');
  const sched = `(ARRAY['15m','1h','4h','1d'])`;
  const seconds = `(ARRAY[900,3600,14400,86400])`;
  return [
    `SET LOCAL synchronous_commit = off`,
    `INSERT INTO "Instrument" (id, active) SELECT unnest(${inst}), true ON CONFLICT (id) DO NOTHING`,
    `INSERT INTO "Agent" (id, name, "createdAt")
       SELECT ${agentUuid('a')}, CASE a WHEN 0 THEN 'bench-browse-main' ELSE 'bench-browse-' || a END, ${since}
       FROM generate_series(0, 9) a`,
    `INSERT INTO "AgentInstrument" (id, "agentId", "instrumentId", "selectedAt")
       SELECT ${uuid(`'bench-browse-sel-' || a || '-' || i`)}, ${agentUuid('a')}, ${inst}[i], ${since}
       FROM generate_series(0, 9) a, generate_series(1, 20) i`,
    // Producers 0–3 ANALYSIS (15m, 1h, 4h, 1d), 4 TRADING, 5 REVIEW, for every agent.
    `INSERT INTO "Producer" (id, "agentId", kind, name, schedule, enabled, "createdAt")
       SELECT ${uuid(`'bench-browse-prod-' || a || '-' || p`)}, ${agentUuid('a')},
              (ARRAY['ANALYSIS','ANALYSIS','ANALYSIS','ANALYSIS','TRADING','REVIEW'])[p + 1]::"RunKind",
              (ARRAY['analysis-15m','analysis-1h','analysis-4h','analysis-1d','trader','reviewer'])[p + 1],
              CASE WHEN p < 4 THEN ${sched}[p + 1] END, true, ${since}
       FROM generate_series(0, 9) a, generate_series(0, 5) p`,
    `INSERT INTO "ProducerEnablement" (id, "agentId", "producerId", enabled, "changedAt")
       SELECT ${uuid(`'bench-browse-en-' || id`)}, "agentId", id, true, "createdAt" FROM "Producer"`,
    // Every record's computed columns, once.
    `CREATE TEMP TABLE bench_rec ON COMMIT DROP AS
       WITH base AS (
         SELECT n, CASE WHEN n % 18 < 9 THEN 0 ELSE n % 18 - 8 END AS a,
                ('x' || lpad(left(md5('bench-browse-' || n), 8), 16, '0'))::bit(64)::bigint AS r,
                '${end.toISOString()}'::timestamptz
                  - ((${records - 1} - n)::bigint * ${days * 86_400_000} / ${records}) * interval '1 millisecond' AS created
         FROM generate_series(0, ${records - 1}) n),
       typed AS (
         SELECT *, CASE WHEN r % 100 < 20 THEN 'market_structure' WHEN r % 100 < 35 THEN 'funding'
                        WHEN r % 100 < 50 THEN 'orderflow' WHEN r % 100 < 62 THEN 'volatility'
                        WHEN r % 100 < 72 THEN 'sentiment' WHEN r % 100 < 82 THEN 'momentum'
                        WHEN r % 100 < 97 THEN 'trading_decision' ELSE 'review' END AS type
         FROM base)
       SELECT n, a, r, created, type,
              CASE type WHEN 'trading_decision' THEN 4 WHEN 'review' THEN 5 ELSE (r / 100) % 4 END::int AS p,
              CASE WHEN type = 'review' OR (type = 'sentiment' AND r % 2 = 0) THEN 'AGENT' ELSE 'INSTRUMENTS' END AS scope,
              (r / 400) % 20 + 1 AS i1,
              CASE WHEN (r / 8000) % 4 = 0 THEN ((r / 400) % 20 + 1 + (r / 32000) % 19) % 20 + 1 END AS i2,
              row_number() OVER (PARTITION BY a ORDER BY n) AS seq
       FROM typed`,
    `INSERT INTO "Run" (id, "agentId", "producerId", kind, schedule, "evidenceBoundary", status, "startedAt", "finishedAt", "tokenHash")
       SELECT ${uuid(`'bench-browse-run-' || a || '-' || p || '-' || (n / 144)`)}, ${agentUuid('a')},
              ${uuid(`'bench-browse-prod-' || a || '-' || p`)},
              (ARRAY['ANALYSIS','ANALYSIS','ANALYSIS','ANALYSIS','TRADING','REVIEW'])[p + 1]::"RunKind",
              CASE WHEN p < 4 THEN ${sched}[p + 1] END, CASE WHEN p < 4 THEN date_trunc('hour', min(created)) END,
              'SUCCEEDED'::"RunStatus", min(created) - interval '1 minute', max(created) + interval '1 minute',
              md5('bench-browse-run-' || a || '-' || p || '-' || (n / 144)) || md5('t' || a || '-' || p || '-' || (n / 144))
       FROM bench_rec GROUP BY a, p, n / 144`,
    `INSERT INTO "Memory" (id, "agentId", type, scope, content, metadata, timeframe, "sourceRunId", "producerId", "runKind",
                           "isCorrection", "createdAt", "expiresAt", "expiryPolicy", seq)
       SELECT ${memUuid('n')}, ${agentUuid('a')}, type, scope::"MemoryScope",
              CASE WHEN scope = 'AGENT' THEN 'Market-wide ' ELSE ${inst}[i1] || ' ' END || replace(type, '_', ' ') || ': '
                || repeat(md5(n::text) || ' ', 5),
              CASE WHEN p < 4 THEN json_build_object('confidence', round((r % 97) / 100.0, 2), 'bias', (ARRAY['long','short','flat'])[r % 3 + 1],
                                                     'stale_after', to_char((created + 2 * ${seconds}[p + 1] * interval '1 second') AT TIME ZONE 'UTC',
                                                                            'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
                   WHEN p = 4 THEN json_build_object('action', (ARRAY['none','open','close'])[r % 3 + 1], 'size', r % 1000)
                   ELSE '{}'::json END,
              CASE WHEN p < 4 THEN ${sched}[p + 1] END,
              ${uuid(`'bench-browse-run-' || a || '-' || p || '-' || (n / 144)`)}, ${uuid(`'bench-browse-prod-' || a || '-' || p`)},
              (ARRAY['ANALYSIS','ANALYSIS','ANALYSIS','ANALYSIS','TRADING','REVIEW'])[p + 1]::"RunKind", false, created,
              CASE WHEN p < 4 THEN created + 2 * ${seconds}[p + 1] * interval '1 second' END,
              CASE WHEN p < 4 THEN 'analysis_schedule_v2' END, seq
       FROM bench_rec`,
    `INSERT INTO "MemoryTarget" ("memoryId", position, "instrumentId", "agentId", "producerId", "runKind", type, "isCorrection", "createdAt")
       SELECT ${memUuid('n')}, t.position, ${inst}[t.i], ${agentUuid('a')}, ${uuid(`'bench-browse-prod-' || a || '-' || p`)},
              (ARRAY['ANALYSIS','ANALYSIS','ANALYSIS','ANALYSIS','TRADING','REVIEW'])[p + 1]::"RunKind", type, false, created
       FROM bench_rec CROSS JOIN LATERAL (VALUES (0, i1), (1, i2)) t(position, i)
       WHERE scope = 'INSTRUMENTS' AND t.i IS NOT NULL`,
    `INSERT INTO "MemoryLink" ("agentId", "memoryId", position, "targetMemoryId", "linkType")
       SELECT ${agentUuid('a')}, ${memUuid('n')}, k, ${memUuid('n - 18 * (k + 1)')}, 'considered'
       FROM bench_rec, generate_series(0, 1) k WHERE type = 'trading_decision' AND n >= 36`,
    `UPDATE "Agent" g SET "lastSeq" = c.seq FROM (SELECT a, max(seq) AS seq FROM bench_rec GROUP BY a) c
       WHERE g.id = ${agentUuid('c.a')}`,
    `INSERT INTO "OperatorToken" (id, "agentId", label, "tokenHash", "createdAt")
       VALUES (${uuid(`'bench-browse-operator'`)}, ${agentUuid('0')}, 'bench', '${tokenHash}', ${since})`,
    `INSERT INTO "Agent" (id, name, "createdAt") VALUES (${uuid(`'${marker(records, days)}'`)}, '${marker(records, days)}', '${end.toISOString()}')`,
  ];
}

/** The name of a complete load's marker row (the 90-day dataset keeps its first name). */
const marker = (records: number, days = DAYS) =>
  `bench-browse-dataset-v1-${records}${days === DAYS ? '' : `-${days}d`}`;

/** The statement (and its parameters) that finds a complete load's newest instant: the marker row. */
export const loadedEndQuery = (records: number, days = DAYS): [string, string[]] => [
  'SELECT "createdAt" FROM "Agent" WHERE name = $1',
  [marker(records, days)],
];

/** The dataset's newest instant when a complete load is there, else null. */
async function loadedEnd(url: string, records: number, days: number): Promise<Date | null> {
  const probe = new pg.Client({ connectionString: url });
  try {
    await probe.connect();
    const found = await probe.query<{ createdAt: Date }>(...loadedEndQuery(records, days));
    return found.rows[0]?.createdAt ?? null;
  } catch {
    return null; // no database or no schema yet
  } finally {
    await probe.end().catch(() => {});
  }
}

/** The dataset on the given server: reused when complete and recent enough, else (re)loaded. */
export async function prepareBrowseDataset(
  serverUrl: string,
  options: {
    quick?: boolean;
    log?: (line: string) => void;
    /** Another size (the growth bench): this many records over `days`, in `database`. */
    size?: { records: number; days: number; database: string };
  } = {},
): Promise<BrowseDataset> {
  const log = options.log ?? ((line: string) => console.error(line));
  const records = options.size?.records ?? (options.quick ? QUICK_RECORDS : FULL_RECORDS);
  const days = options.size?.days ?? DAYS;
  const database =
    options.size?.database ?? (options.quick ? 'memory_bench_browse_quick' : 'memory_bench_browse');
  const url = withDatabaseName(serverUrl, database);
  const agentId = createHash('md5').update('bench-browse-agent-0').digest('hex');
  const asUuid = `${agentId.slice(0, 8)}-${agentId.slice(8, 12)}-${agentId.slice(12, 16)}-${agentId.slice(16, 20)}-${agentId.slice(20)}`;
  let end = await loadedEnd(url, records, days);
  if (end && Date.now() - end.getTime() <= MAX_AGE_HOURS * 3_600_000) {
    log(`browse data: reusing ${records} records in ${database} (newest ${end.toISOString()})`);
    await benchDatabase(serverUrl, database, false); // migrations: a no-op when up to date
    return { url, database, agentId: asUuid, records, end };
  }
  if (end)
    log(`browse data: the dataset in ${database} ends ${end.toISOString()}, over ${MAX_AGE_HOURS} h ago`);
  log(`browse data: loading ${records} records into ${database}`);
  const started = performance.now();
  await benchDatabase(serverUrl, database, true);
  end = new Date(Math.floor(Date.now() / 60_000) * 60_000);
  await loadInOneTransaction(url, datasetStatements(records, end, days), log);
  log(`browse data: loaded in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return { url, database, agentId: asUuid, records, end };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const serverUrl = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  await prepareBrowseDataset(serverUrl, { quick: process.argv.includes('--quick') });
  process.exit(0); // the migration step's database handles idle out only after 10 s
}

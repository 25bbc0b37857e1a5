// Trading-context benchmark (C1–C10): tradingContext through GraphQL (in-process yoga.fetch) against
// the best single hand-written SQL statement for the same answer, over a production-size dataset.
import { createHash } from 'node:crypto';
import pg from 'pg';
import type { ScenarioReport } from './table.js';
import { pino } from 'pino';
import { createMemoryEvents } from '../src/live/events.js';
import { createServer } from '../src/server.js';
import { openDatabase } from '../src/store/db.js';
import {
  BENCH_ADMIN_TOKEN,
  benchDatabase,
  loadInOneTransaction,
  percentile,
  withDatabaseName,
} from './support.js';

// ---------------------------------------------------------------------------------------------
// Dataset (2,016,799 records over 20 agents), bulk-loaded with INSERT … SELECT generate_series.
//
// Main agent "bench-main": 20 instruments, 30 Analysis producers (schedules 5m/15m/1h/4h/1d by
// producer index mod 5), one Trading and one Review producer, one year of 5-minute slots
// (105,120 slots from 2025-10-01Z):
//   - slot s: producer s mod 30 runs once for instrument ⌊s/30⌋ mod 20 and publishes all 8 types
//     (8 INSTRUMENTS records) — every (producer, instrument) pair publishes every 50 h, so every one
//     of the 30 × 8 × 20 groups exists and, at any instant, the 1d and 4h producers' records are
//     mostly FRESH while the 5m–1h ones are mostly STALE: 831,360 records (slots of disabled
//     producers publish nothing);
//   - every hour one producer (rotating) publishes an AGENT-scoped `regime` / `macro_view`: 8,660;
//   - every 49th slot a correction (`correction` / `erratum`, alternating) of that slot's first
//     record, every 245th of its first two (49 is coprime with the 600-slot cycle, so corrections
//     reach every producer and instrument): 2,120; every 97th hour an agent-wide correction of
//     that hour's AGENT record: 89;
//   - every hour a Trading run writes one `trading_decision` per instrument, each `considered`-linking
//     two Analysis records: 175,200;
//   - every day a Review run writes a `review` and an `agent_learnings` (agent-wide on even days,
//     one instrument on odd days): 730;
//   - producer 7 is disabled for days 100–160 and producer 19 from day 300 on (no publications
//     while disabled; DISABLED entries in the context).
// Main agent: 1,018,159 records. 19 other agents: 5 Analysis producers (1h), a record every 10
// minutes over 20 instruments and 4 types: 52,560 each, 998,640 in all.
// Ids are md5-derived UUIDs so links can be computed in SQL; everything is one transaction that ends
// with a marker row, so an interrupted load is redone and a complete one is reused.
// ---------------------------------------------------------------------------------------------

const MARKER = 'bench-context-dataset-v3';
const START = '2025-10-01T00:00:00Z';
const FULL_SLOTS = 105_120; // a year of 5-minute slots
/** --quick: two weeks of slots (≈ 90,000 records), to prove the loader and the harness (CI). */
const QUICK_SLOTS = 4_032;
const endOf = (slots: number) => new Date(Date.parse(START) + slots * 300_000);
const INSTRUMENTS = [
  'BTC', 'ETH', 'SOL', 'kPEPE', 'DOGE', 'XRP', 'AVAX', 'LINK', 'ARB', 'OP',
  'SUI', 'APT', 'INJ', 'TIA', 'SEI', 'WIF', 'JUP', 'BNB', 'LTC', 'ATOM',
]; // prettier-ignore
const TRADING_TOKEN = 'run_bench_context_trading_token';

function datasetSql(slots: number): string[] {
  const end = endOf(slots);
  const inst = `(ARRAY[${INSTRUMENTS.map((i) => `'${i}'`).join(',')}])`;
  const types = `(ARRAY['market_structure','funding','orderflow','volatility','sentiment','liquidity','momentum','onchain'])`;
  const start = `'${START}'::timestamptz`;
  const uuid = (expr: string) => `md5(${expr})::uuid`;
  const mainAgent = uuid(`'bench-agent-0'`);
  const iv = (p: string) => `(ARRAY[300,900,3600,14400,86400])[(${p}) % 5 + 1]`;
  const sched = (p: string) => `(ARRAY['5m','15m','1h','4h','1d'])[(${p}) % 5 + 1]`;
  // Whether main-agent Analysis producer p is enabled at slot s (day = s / 288).
  const enabled = (p: string, s: string) =>
    `NOT ((${p}) = 7 AND (${s}) / 288 BETWEEN 100 AND 159) AND NOT ((${p}) = 19 AND (${s}) / 288 >= 300)`;
  return [
    `SET LOCAL synchronous_commit = off`,
    // L2: every record has its agent's seq. Their order does not matter to the context, only that
    // they are unique and below the agent's lastSeq: one sequence numbers every insert of the load.
    `CREATE SEQUENCE bench_memory_seq`,
    `ALTER TABLE "Memory" ALTER COLUMN seq SET DEFAULT nextval('bench_memory_seq')`,
    `INSERT INTO "Instrument" (id, active) SELECT unnest(${inst}), true ON CONFLICT (id) DO NOTHING`,
    `INSERT INTO "Agent" (id, name, "createdAt")
       SELECT ${uuid(`'bench-agent-' || a`)}, CASE a WHEN 0 THEN 'bench-main' ELSE 'bench-agent-' || a END, ${start} - interval '1 day'
       FROM generate_series(0, 19) a`,
    `INSERT INTO "AgentInstrument" (id, "agentId", "instrumentId", "selectedAt")
       SELECT ${uuid(`'bench-sel-' || a || '-' || i`)}, ${uuid(`'bench-agent-' || a`)}, ${inst}[i], ${start} - interval '1 day'
       FROM generate_series(0, 19) a, generate_series(1, 20) i`,
    // Producers: main agent a0..a29 + trading + review; other agents 5 Analysis producers each.
    `INSERT INTO "Producer" (id, "agentId", kind, name, schedule, enabled, "createdAt")
       SELECT ${uuid(`'bench-prod-0-' || p`)}, ${mainAgent}, 'ANALYSIS'::"RunKind", 'analysis-' || lpad(p::text, 2, '0'),
              ${sched('p')}, p <> 19, ${start} - interval '1 day'
       FROM generate_series(0, 29) p
       UNION ALL SELECT ${uuid(`'bench-prod-0-trading'`)}, ${mainAgent}, 'TRADING'::"RunKind", 'trader', NULL, true, ${start} - interval '1 day'
       UNION ALL SELECT ${uuid(`'bench-prod-0-review'`)}, ${mainAgent}, 'REVIEW'::"RunKind", 'reviewer', NULL, true, ${start} - interval '1 day'
       UNION ALL SELECT ${uuid(`'bench-prod-' || a || '-' || p`)}, ${uuid(`'bench-agent-' || a`)}, 'ANALYSIS'::"RunKind",
              'analysis-' || p, '1h', true, ${start} - interval '1 day'
       FROM generate_series(1, 19) a, generate_series(0, 4) p`,
    `INSERT INTO "ProducerEnablement" (id, "agentId", "producerId", enabled, "changedAt")
       SELECT ${uuid(`'bench-en-' || id`)}, "agentId", id, true, "createdAt" FROM "Producer"
       WHERE "agentId" IN (SELECT id FROM "Agent" WHERE name LIKE 'bench-%')
       UNION ALL SELECT ${uuid(`'bench-en-7-off'`)}, ${mainAgent}, ${uuid(`'bench-prod-0-7'`)}, false, ${start} + interval '100 days'
       UNION ALL SELECT ${uuid(`'bench-en-7-on'`)}, ${mainAgent}, ${uuid(`'bench-prod-0-7'`)}, true, ${start} + interval '160 days'
       UNION ALL SELECT ${uuid(`'bench-en-19-off'`)}, ${mainAgent}, ${uuid(`'bench-prod-0-19'`)}, false, ${start} + interval '300 days'`,
    // The main agent's Analysis slots, computed once.
    `CREATE TEMP TABLE bench_slot ON COMMIT DROP AS
       SELECT s, s % 30 AS p, (s / 30) % 20 + 1 AS i,
              ${start} + s * interval '5 minutes' AS ts,
              to_timestamp(floor(extract(epoch FROM ${start} + s * interval '5 minutes') / ${iv('s % 30')}) * ${iv('s % 30')}) AS boundary,
              ${start} + s * interval '5 minutes' + (30 + s % 90) * interval '1 second' AS created,
              ${iv('s % 30')} AS iv
       FROM generate_series(0, ${slots - 1}) s
       WHERE ${enabled('s % 30', 's')}`,
    `INSERT INTO "Run" (id, "agentId", "producerId", kind, schedule, "evidenceBoundary", status, "startedAt", "finishedAt", "tokenHash")
       SELECT ${uuid(`'bench-run-0-' || s`)}, ${mainAgent}, ${uuid(`'bench-prod-0-' || p`)}, 'ANALYSIS'::"RunKind", ${sched('p')},
              boundary, 'SUCCEEDED'::"RunStatus", ts, created + interval '2 minutes', md5('bench-run-0-' || s) || md5('t')
       FROM bench_slot`,
    `INSERT INTO "Memory" (id, "agentId", type, scope, content, metadata, timeframe, "sourceRunId", "producerId", "runKind",
                           "isCorrection", "createdAt", "expiresAt", "expiryPolicy")
       SELECT ${uuid(`'bench-mem-0-' || s || '-' || k`)}, ${mainAgent}, ${types}[k + 1], 'INSTRUMENTS'::"MemoryScope",
              ${inst}[i] || ' ' || ${types}[k + 1] || ' after the ' || ${sched('p')} || ' close: ' || repeat(md5(s::text || k), 4),
              json_build_object('confidence', ((s * 7 + k) % 100) / 100.0, 'bias', (ARRAY['long','short','flat'])[(s + k) % 3 + 1],
                                'stale_after', to_char((boundary + iv * 2 * interval '1 second') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                                'expiry_policy', 'analysis_schedule_v2'),
              ${sched('p')}, ${uuid(`'bench-run-0-' || s`)}, ${uuid(`'bench-prod-0-' || p`)}, 'ANALYSIS'::"RunKind", false,
              created, boundary + iv * 2 * interval '1 second', 'analysis_schedule_v2'
       FROM bench_slot, generate_series(0, 7) k`,
    `INSERT INTO "MemoryTarget" ("memoryId", position, "instrumentId", "agentId", "producerId", "runKind", type, "isCorrection", "createdAt")
       SELECT ${uuid(`'bench-mem-0-' || s || '-' || k`)}, 0, ${inst}[i], ${mainAgent}, ${uuid(`'bench-prod-0-' || p`)}, 'ANALYSIS'::"RunKind",
              ${types}[k + 1], false, created
       FROM bench_slot, generate_series(0, 7) k`,
    // Corrections: every 49th slot corrects its first record (every 245th its first two), a minute later.
    `INSERT INTO "Memory" (id, "agentId", type, scope, content, metadata, timeframe, "sourceRunId", "producerId", "runKind",
                           "isCorrection", "createdAt", "expiresAt", "expiryPolicy")
       SELECT ${uuid(`'bench-corr-0-' || s`)}, ${mainAgent}, CASE WHEN (s / 49) % 2 = 0 THEN 'correction' ELSE 'erratum' END, 'INSTRUMENTS'::"MemoryScope",
              'Correction: the ' || ${inst}[i] || ' reading above used a stale order book. ' || repeat(md5(s::text), 2),
              json_build_object('stale_after', to_char((boundary + iv * 2 * interval '1 second') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                                'expiry_policy', 'analysis_schedule_v2'),
              ${sched('p')}, ${uuid(`'bench-run-0-' || s`)}, ${uuid(`'bench-prod-0-' || p`)}, 'ANALYSIS'::"RunKind", true,
              created + interval '1 minute', boundary + iv * 2 * interval '1 second', 'analysis_schedule_v2'
       FROM bench_slot WHERE s % 49 = 24`,
    `INSERT INTO "MemoryTarget" ("memoryId", position, "instrumentId", "agentId", "producerId", "runKind", type, "isCorrection", "createdAt")
       SELECT ${uuid(`'bench-corr-0-' || s`)}, 0, ${inst}[i], ${mainAgent}, ${uuid(`'bench-prod-0-' || p`)}, 'ANALYSIS'::"RunKind",
              CASE WHEN (s / 49) % 2 = 0 THEN 'correction' ELSE 'erratum' END, true, created + interval '1 minute'
       FROM bench_slot WHERE s % 49 = 24`,
    `INSERT INTO "MemoryLink" ("agentId", "memoryId", position, "targetMemoryId", "linkType")
       SELECT ${mainAgent}, ${uuid(`'bench-corr-0-' || s`)}, k, ${uuid(`'bench-mem-0-' || s || '-' || k`)}, 'corrects'
       FROM bench_slot, generate_series(0, 1) k WHERE s % 49 = 24 AND (k = 0 OR s % 245 = 24)`,
    // Hourly AGENT-scoped research, rotating over the producers.
    `CREATE TEMP TABLE bench_hour ON COMMIT DROP AS
       SELECT h, h % 30 AS p, ${start} + h * interval '1 hour' AS ts,
              to_timestamp(floor(extract(epoch FROM ${start} + h * interval '1 hour') / ${iv('h % 30')}) * ${iv('h % 30')}) AS boundary,
              ${iv('h % 30')} AS iv
       FROM generate_series(0, ${slots / 12 - 1}) h`,
    `INSERT INTO "Run" (id, "agentId", "producerId", kind, schedule, "evidenceBoundary", status, "startedAt", "finishedAt", "tokenHash")
       SELECT ${uuid(`'bench-run-0-agent-' || h`)}, ${mainAgent}, ${uuid(`'bench-prod-0-' || p`)}, 'ANALYSIS'::"RunKind", ${sched('p')},
              boundary, 'SUCCEEDED'::"RunStatus", ts, ts + interval '3 minutes', md5('bench-run-0-agent-' || h) || md5('t')
       FROM bench_hour WHERE ${enabled('p', 'h * 12')}
       UNION ALL
       SELECT ${uuid(`'bench-run-0-trading-' || h`)}, ${mainAgent}, ${uuid(`'bench-prod-0-trading'`)}, 'TRADING'::"RunKind", NULL,
              NULL, 'SUCCEEDED'::"RunStatus", ts + interval '3 minutes', ts + interval '4 minutes', md5('bench-run-0-trading-' || h) || md5('t')
       FROM bench_hour`,
    `INSERT INTO "Memory" (id, "agentId", type, scope, content, metadata, timeframe, "sourceRunId", "producerId", "runKind",
                           "isCorrection", "createdAt", "expiresAt", "expiryPolicy")
       SELECT ${uuid(`'bench-agentmem-0-' || h`)}, ${mainAgent}, CASE WHEN (h / 30) % 2 = 0 THEN 'regime' ELSE 'macro_view' END, 'AGENT'::"MemoryScope",
              'Market-wide view: ' || repeat(md5(h::text), 4),
              json_build_object('stale_after', to_char((boundary + iv * 2 * interval '1 second') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                                'expiry_policy', 'analysis_schedule_v2'),
              ${sched('p')}, ${uuid(`'bench-run-0-agent-' || h`)}, ${uuid(`'bench-prod-0-' || p`)}, 'ANALYSIS'::"RunKind", false,
              ts + interval '2 minutes', boundary + iv * 2 * interval '1 second', 'analysis_schedule_v2'
       FROM bench_hour WHERE ${enabled('p', 'h * 12')}`,
    `INSERT INTO "Memory" (id, "agentId", type, scope, content, metadata, timeframe, "sourceRunId", "producerId", "runKind",
                           "isCorrection", "createdAt", "expiresAt", "expiryPolicy")
       SELECT ${uuid(`'bench-agentcorr-0-' || h`)}, ${mainAgent}, 'correction', 'AGENT'::"MemoryScope",
              'Correction of the market-wide view: ' || repeat(md5(h::text), 2),
              json_build_object('stale_after', to_char((boundary + iv * 2 * interval '1 second') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                                'expiry_policy', 'analysis_schedule_v2'),
              ${sched('p')}, ${uuid(`'bench-run-0-agent-' || h`)}, ${uuid(`'bench-prod-0-' || p`)}, 'ANALYSIS'::"RunKind", true,
              ts + interval '4 minutes', boundary + iv * 2 * interval '1 second', 'analysis_schedule_v2'
       FROM bench_hour WHERE h % 97 = 50 AND ${enabled('p', 'h * 12')}`,
    `INSERT INTO "MemoryLink" ("agentId", "memoryId", position, "targetMemoryId", "linkType")
       SELECT ${mainAgent}, ${uuid(`'bench-agentcorr-0-' || h`)}, 0, ${uuid(`'bench-agentmem-0-' || h`)}, 'corrects'
       FROM bench_hour WHERE h % 97 = 50 AND ${enabled('p', 'h * 12')}`,
    // Trading decisions: one per instrument per hour, considering two records of the hour's first slot
    // (slot 12h belongs to producer 12h mod 30 ∈ {0, 6, 12, 18, 24}, never disabled).
    `INSERT INTO "Memory" (id, "agentId", type, scope, content, metadata, timeframe, "sourceRunId", "producerId", "runKind",
                           "isCorrection", "createdAt", "expiresAt", "expiryPolicy")
       SELECT ${uuid(`'bench-dec-0-' || h || '-' || i`)}, ${mainAgent}, 'trading_decision', 'INSTRUMENTS'::"MemoryScope",
              'No trade on ' || ${inst}[i] || ': edge below threshold.', '{"action":"none"}'::json, NULL,
              ${uuid(`'bench-run-0-trading-' || h`)}, ${uuid(`'bench-prod-0-trading'`)}, 'TRADING'::"RunKind", false,
              ts + interval '3 minutes' + i * interval '1 second', NULL, NULL
       FROM bench_hour, generate_series(1, 20) i`,
    `INSERT INTO "MemoryTarget" ("memoryId", position, "instrumentId", "agentId", "producerId", "runKind", type, "isCorrection", "createdAt")
       SELECT ${uuid(`'bench-dec-0-' || h || '-' || i`)}, 0, ${inst}[i], ${mainAgent}, ${uuid(`'bench-prod-0-trading'`)}, 'TRADING'::"RunKind",
              'trading_decision', false, ts + interval '3 minutes' + i * interval '1 second'
       FROM bench_hour, generate_series(1, 20) i`,
    `INSERT INTO "MemoryLink" ("agentId", "memoryId", position, "targetMemoryId", "linkType")
       SELECT ${mainAgent}, ${uuid(`'bench-dec-0-' || h || '-' || i`)}, k, ${uuid(`'bench-mem-0-' || (h * 12) || '-' || k`)}, 'considered'
       FROM bench_hour, generate_series(1, 20) i, generate_series(0, 1) k`,
    // Daily review and learnings.
    `INSERT INTO "Run" (id, "agentId", "producerId", kind, schedule, "evidenceBoundary", status, "startedAt", "finishedAt", "tokenHash")
       SELECT ${uuid(`'bench-run-0-review-' || d`)}, ${mainAgent}, ${uuid(`'bench-prod-0-review'`)}, 'REVIEW'::"RunKind", NULL, NULL, 'SUCCEEDED'::"RunStatus",
              ${start} + d * interval '1 day' + interval '23 hours', ${start} + d * interval '1 day' + interval '23 hours 5 minutes',
              md5('bench-run-0-review-' || d) || md5('t')
       FROM generate_series(0, 364) d`,
    `INSERT INTO "Memory" (id, "agentId", type, scope, content, metadata, timeframe, "sourceRunId", "producerId", "runKind",
                           "isCorrection", "createdAt", "expiresAt", "expiryPolicy")
       SELECT ${uuid(`'bench-rev-0-' || d || '-' || k`)}, ${mainAgent}, CASE k WHEN 0 THEN 'review' ELSE 'agent_learnings' END,
              CASE WHEN k = 1 AND d % 2 = 1 THEN 'INSTRUMENTS'::"MemoryScope" ELSE 'AGENT'::"MemoryScope" END,
              CASE k WHEN 0 THEN 'Day review: ' ELSE 'Lesson: ' END || repeat(md5(d::text || k), 3), '{}'::json, NULL,
              ${uuid(`'bench-run-0-review-' || d`)}, ${uuid(`'bench-prod-0-review'`)}, 'REVIEW'::"RunKind", false,
              ${start} + d * interval '1 day' + interval '23 hours' + k * interval '1 minute', NULL, NULL
       FROM generate_series(0, 364) d, generate_series(0, 1) k`,
    `INSERT INTO "MemoryTarget" ("memoryId", position, "instrumentId", "agentId", "producerId", "runKind", type, "isCorrection", "createdAt")
       SELECT ${uuid(`'bench-rev-0-' || d || '-1'`)}, 0, ${inst}[(d / 2) % 20 + 1], ${mainAgent}, ${uuid(`'bench-prod-0-review'`)}, 'REVIEW'::"RunKind",
              'agent_learnings', false, ${start} + d * interval '1 day' + interval '23 hours 1 minute'
       FROM generate_series(0, 364) d WHERE d % 2 = 1`,
    // The other 19 agents: one run per producer and day, a record every 10 minutes.
    `INSERT INTO "Run" (id, "agentId", "producerId", kind, schedule, "evidenceBoundary", status, "startedAt", "finishedAt", "tokenHash")
       SELECT ${uuid(`'bench-run-' || a || '-' || d || '-' || p`)}, ${uuid(`'bench-agent-' || a`)}, ${uuid(`'bench-prod-' || a || '-' || p`)},
              'ANALYSIS'::"RunKind", '1h', ${start} + d * interval '1 day', 'SUCCEEDED'::"RunStatus", ${start} + d * interval '1 day',
              ${start} + d * interval '1 day' + interval '1 hour', md5('bench-run-' || a || '-' || d || '-' || p) || md5('t')
       FROM generate_series(1, 19) a, generate_series(0, 364) d, generate_series(0, 4) p`,
    `CREATE TEMP TABLE bench_other ON COMMIT DROP AS
       SELECT a, s, s % 5 AS p, (s / 5) % 20 + 1 AS i, (ARRAY['trend','levels','funding','news'])[(s / 100) % 4 + 1] AS type,
              ${start} + s * interval '10 minutes' + interval '40 seconds' AS created
       FROM generate_series(1, 19) a, generate_series(0, ${slots / 2 - 1}) s`,
    `INSERT INTO "Memory" (id, "agentId", type, scope, content, metadata, timeframe, "sourceRunId", "producerId", "runKind",
                           "isCorrection", "createdAt", "expiresAt", "expiryPolicy")
       SELECT ${uuid(`'bench-mem-' || a || '-' || s`)}, ${uuid(`'bench-agent-' || a`)}, type, 'INSTRUMENTS'::"MemoryScope",
              ${inst}[i] || ' ' || type || ': ' || repeat(md5(a::text || s), 4),
              json_build_object('stale_after', to_char((date_trunc('hour', created) + interval '2 hours') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                                'expiry_policy', 'analysis_schedule_v2'),
              '1h', ${uuid(`'bench-run-' || a || '-' || (s / 144) || '-' || p`)}, ${uuid(`'bench-prod-' || a || '-' || p`)}, 'ANALYSIS'::"RunKind", false,
              created, date_trunc('hour', created) + interval '2 hours', 'analysis_schedule_v2'
       FROM bench_other`,
    `INSERT INTO "MemoryTarget" ("memoryId", position, "instrumentId", "agentId", "producerId", "runKind", type, "isCorrection", "createdAt")
       SELECT ${uuid(`'bench-mem-' || a || '-' || s`)}, 0, ${inst}[i], ${uuid(`'bench-agent-' || a`)}, ${uuid(`'bench-prod-' || a || '-' || p`)},
              'ANALYSIS'::"RunKind", type, false, created
       FROM bench_other`,
    // The Trading run whose token the benchmark uses (RUNNING, so the token works).
    `INSERT INTO "Run" (id, "agentId", "producerId", kind, status, "startedAt", "tokenHash")
       VALUES (${uuid(`'bench-run-0-trading-live'`)}, ${mainAgent}, ${uuid(`'bench-prod-0-trading'`)}, 'TRADING'::"RunKind", 'RUNNING'::"RunStatus",
               '${end.toISOString()}', '${createHash('sha256').update(TRADING_TOKEN).digest('hex')}')`,
    `ALTER TABLE "Memory" ALTER COLUMN seq DROP DEFAULT`,
    `DROP SEQUENCE bench_memory_seq`,
    `UPDATE "Agent" a SET "lastSeq" = coalesce((SELECT max(m.seq) FROM "Memory" m WHERE m."agentId" = a.id), 0)`,
    `INSERT INTO "Agent" (id, name) VALUES (${uuid(`'${MARKER}'`)}, '${MARKER}')`,
  ];
}

/** The bench's own database on the given server: reused when a complete load is there, else rebuilt and loaded. */
async function prepareDatabase(
  serverUrl: string,
  slots: number,
  log: (line: string) => void,
): Promise<string> {
  const name = slots === FULL_SLOTS ? 'memory_bench_context' : 'memory_bench_context_quick';
  const url = withDatabaseName(serverUrl, name);
  let loaded = false;
  const probe = new pg.Client({ connectionString: url });
  try {
    await probe.connect();
    loaded = (await probe.query('SELECT 1 FROM "Agent" WHERE name = $1', [MARKER])).rowCount === 1;
  } catch {
    loaded = false; // no database or no schema yet
  } finally {
    await probe.end().catch(() => {});
  }
  await benchDatabase(serverUrl, name, !loaded); // migrates (a no-op when up to date)
  if (loaded) {
    log(`context bench: reusing the dataset in ${name}`);
    return url;
  }
  log(
    `context bench: loading ${slots === FULL_SLOTS ? '≈2M records' : 'the quick dataset'} into ${name} (once)`,
  );
  await loadInOneTransaction(url, datasetSql(slots), log);
  return url;
}

// ---------------------------------------------------------------------------------------------
// The baseline: the whole answer — C1/C2 (the same skip scan over the same indexes), C3–C7 status,
// projection and order, C10 learnings — as ONE statement returning one JSON document, run as a
// named prepared statement through `pg` (no re-planning), the best a hand-written query can do.
// ---------------------------------------------------------------------------------------------
const BASELINE_SQL = `
WITH RECURSIVE
instrument_group AS (
  (SELECT t."producerId", t.type, t."createdAt", t."memoryId" AS id FROM "MemoryTarget" t
    WHERE t."agentId" = $1 AND t."instrumentId" = $2 AND t."runKind" = 'ANALYSIS' AND t."isCorrection" = false
    ORDER BY t."producerId", t.type, t."createdAt" DESC, t."memoryId" DESC LIMIT 1)
  UNION ALL
  SELECT nxt.* FROM instrument_group g CROSS JOIN LATERAL (
    SELECT t."producerId", t.type, t."createdAt", t."memoryId" FROM "MemoryTarget" t
     WHERE t."agentId" = $1 AND t."instrumentId" = $2 AND t."runKind" = 'ANALYSIS' AND t."isCorrection" = false
       AND (t."producerId", t.type) > (g."producerId", g.type)
     ORDER BY t."producerId", t.type, t."createdAt" DESC, t."memoryId" DESC LIMIT 1) nxt
),
agent_group AS (
  (SELECT m."producerId", m.type, m."createdAt", m.id FROM "Memory" m
    WHERE m."agentId" = $1 AND m."runKind" = 'ANALYSIS' AND m.scope = 'AGENT' AND m."isCorrection" = false
    ORDER BY m."producerId", m.type, m."createdAt" DESC, m.id DESC LIMIT 1)
  UNION ALL
  SELECT nxt.* FROM agent_group g CROSS JOIN LATERAL (
    SELECT m."producerId", m.type, m."createdAt", m.id FROM "Memory" m
     WHERE m."agentId" = $1 AND m."runKind" = 'ANALYSIS' AND m.scope = 'AGENT' AND m."isCorrection" = false
       AND (m."producerId", m.type) > (g."producerId", g.type)
     ORDER BY m."producerId", m.type, m."createdAt" DESC, m.id DESC LIMIT 1) nxt
),
kept AS (
  SELECT CASE WHEN g."createdAt" <= $3 THEN g.id ELSE (
           SELECT t."memoryId" FROM "MemoryTarget" t
            WHERE t."agentId" = $1 AND t."instrumentId" = $2 AND t."runKind" = 'ANALYSIS' AND t."isCorrection" = false
              AND t."producerId" = g."producerId" AND t.type = g.type AND t."createdAt" <= $3
            ORDER BY t."createdAt" DESC, t."memoryId" DESC LIMIT 1) END AS id
    FROM instrument_group g
  UNION ALL
  SELECT CASE WHEN g."createdAt" <= $3 THEN g.id ELSE (
           SELECT m.id FROM "Memory" m
            WHERE m."agentId" = $1 AND m."runKind" = 'ANALYSIS' AND m.scope = 'AGENT' AND m."isCorrection" = false
              AND m."producerId" = g."producerId" AND m.type = g.type AND m."createdAt" <= $3
            ORDER BY m."createdAt" DESC, m.id DESC LIMIT 1) END
    FROM agent_group g
),
producer AS MATERIALIZED (
  SELECT pr.id, pr.name, coalesce((
           SELECT e.enabled FROM "ProducerEnablement" e WHERE e."agentId" = $1 AND e."producerId" = pr.id AND e."changedAt" <= $3
            ORDER BY e."changedAt" DESC, (e.enabled = pr.enabled) DESC LIMIT 1), true) AS enabled
    FROM "Producer" pr WHERE pr."agentId" = $1
),
entry AS MATERIALIZED (
  SELECT m.id, m."sourceRunId", m."producerId", m.type, m.scope, m."createdAt", m."expiresAt", m."expiryPolicy",
         m.content, m.metadata, m.timeframe,
         CASE WHEN NOT pr.enabled THEN 'DISABLED' WHEN m."expiresAt" <= $3 THEN 'STALE' ELSE 'FRESH' END AS status
    FROM kept k JOIN "Memory" m ON m."agentId" = $1 AND m.id = k.id JOIN producer pr ON pr.id = m."producerId"
),
correction_candidate AS (
  -- C11: only corrections of a kept record, found through the links to the entries.
  SELECT m.id, m."sourceRunId", m."producerId", m.type, m.scope, m."createdAt", m."expiresAt",
         m.content, m.metadata, m.timeframe,
         ARRAY(SELECT DISTINCT l."targetMemoryId" FROM "MemoryLink" l
                WHERE l."agentId" = $1 AND l."memoryId" = m.id AND l."linkType" = 'corrects' ORDER BY 1) AS targets
    FROM "Memory" m
   WHERE m.id IN (SELECT l."memoryId" FROM "MemoryLink" l
                   WHERE l."agentId" = $1 AND l."targetMemoryId" = ANY (ARRAY(SELECT id FROM entry)) AND l."linkType" = 'corrects')
     AND m."agentId" = $1 AND m."runKind" = 'ANALYSIS' AND m."isCorrection" AND m."createdAt" <= $3
     AND (m.scope = 'AGENT' OR EXISTS (
           SELECT 1 FROM "MemoryTarget" t WHERE t."agentId" = $1 AND t."memoryId" = m.id AND t."instrumentId" = $2))
),
correction AS MATERIALIZED (
  SELECT c.*, CASE WHEN o.current = 0 THEN 'SUPERSEDED' WHEN c."expiresAt" <= $3 THEN 'STALE' ELSE 'FRESH' END AS status,
         CASE WHEN o.current = 0 THEN c."expiresAt" ELSE least(c."expiresAt", o.latest) END AS "shownExpiresAt"
    FROM (SELECT DISTINCT ON ("producerId", scope, targets) * FROM correction_candidate
           ORDER BY "producerId", scope, targets, "createdAt" DESC, id DESC) c
    CROSS JOIN LATERAL (
      SELECT count(*) AS current,
             CASE WHEN bool_or(e."expiresAt" IS NULL) THEN NULL ELSE max(e."expiresAt") END AS latest
        FROM entry e WHERE e.status = 'FRESH' AND e.id = ANY(c.targets)) o
),
run AS MATERIALIZED (
  SELECT r.id, r."producerId", r.kind, r.schedule, r."evidenceBoundary", r.status FROM "Run" r
   WHERE r."agentId" = $1 AND r.id IN (SELECT "sourceRunId" FROM entry UNION SELECT "sourceRunId" FROM correction)
),
learning AS (
  SELECT m.* FROM "Memory" m
   WHERE m."agentId" = $1 AND m.type = 'agent_learnings' AND m."createdAt" <= $3
     AND (m.scope = 'AGENT' OR EXISTS (SELECT 1 FROM "MemoryTarget" t WHERE t."agentId" = $1 AND t."memoryId" = m.id AND t."instrumentId" = $2))
   ORDER BY m."createdAt" DESC, m.id DESC LIMIT 20
)
SELECT json_build_object(
  'entries', coalesce((
    SELECT json_agg(json_build_object(
             'memoryId', e.id, 'type', e.type, 'scope', e.scope, 'status', e.status, 'createdAt', e."createdAt",
             'expiresAt', e."expiresAt", 'expiryPolicy', e."expiryPolicy",
             'provenance', json_build_object('runId', r.id, 'producerId', r."producerId", 'producerName', p.name,
                 'kind', r.kind, 'schedule', r.schedule, 'evidenceBoundary', r."evidenceBoundary", 'runStatus', r.status),
             'research', CASE WHEN e.status = 'FRESH' THEN json_build_object(
                 'content', e.content, 'metadata', e.metadata, 'timeframe', e.timeframe,
                 'instruments', ARRAY(SELECT t."instrumentId" FROM "MemoryTarget" t WHERE t."agentId" = $1 AND t."memoryId" = e.id ORDER BY t.position),
                 'links', coalesce((SELECT json_agg(json_build_object('linkType', l."linkType", 'targetMemoryId', l."targetMemoryId") ORDER BY l.position)
                                      FROM "MemoryLink" l WHERE l."agentId" = $1 AND l."memoryId" = e.id), '[]')) END)
           ORDER BY e.status <> 'FRESH', e."createdAt" DESC, e.id DESC)
      FROM entry e JOIN run r ON r.id = e."sourceRunId" JOIN producer p ON p.id = e."producerId"), '[]'),
  'corrections', coalesce((
    SELECT json_agg(json_build_object(
             'memoryId', c.id, 'type', c.type, 'scope', c.scope, 'status', c.status, 'correctionTargetIds', c.targets,
             'createdAt', c."createdAt", 'expiresAt', c."shownExpiresAt",
             'provenance', json_build_object('runId', r.id, 'producerId', r."producerId", 'producerName', p.name,
                 'kind', r.kind, 'schedule', r.schedule, 'evidenceBoundary', r."evidenceBoundary", 'runStatus', r.status),
             'research', CASE WHEN c.status = 'FRESH' THEN json_build_object(
                 'content', c.content, 'metadata', c.metadata, 'timeframe', c.timeframe,
                 'instruments', ARRAY(SELECT t."instrumentId" FROM "MemoryTarget" t WHERE t."agentId" = $1 AND t."memoryId" = c.id ORDER BY t.position),
                 'links', coalesce((SELECT json_agg(json_build_object('linkType', l."linkType", 'targetMemoryId', l."targetMemoryId") ORDER BY l.position)
                                      FROM "MemoryLink" l WHERE l."agentId" = $1 AND l."memoryId" = c.id), '[]')) END)
           ORDER BY c.status <> 'FRESH', c."createdAt" DESC, c.id DESC)
      FROM correction c JOIN run r ON r.id = c."sourceRunId" JOIN producer p ON p.id = c."producerId"), '[]'),
  'learnings', coalesce((
    SELECT json_agg(json_build_object(
             'id', l.id, 'agentId', l."agentId", 'type', l.type, 'scope', l.scope,
             'instruments', ARRAY(SELECT t."instrumentId" FROM "MemoryTarget" t WHERE t."agentId" = $1 AND t."memoryId" = l.id ORDER BY t.position),
             'content', l.content, 'metadata', l.metadata, 'timeframe', l.timeframe, 'createdAt', l."createdAt",
             'expiresAt', l."expiresAt", 'expiryPolicy', l."expiryPolicy",
             'provenance', CASE WHEN r.id IS NOT NULL THEN json_build_object('runId', r.id, 'producerId', r."producerId",
                 'producerName', p.name, 'kind', r.kind, 'schedule', r.schedule, 'evidenceBoundary', r."evidenceBoundary",
                 'runStatus', r.status) END,
             'links', coalesce((SELECT json_agg(json_build_object('linkType', k."linkType", 'targetMemoryId', k."targetMemoryId") ORDER BY k.position)
                                  FROM "MemoryLink" k WHERE k."agentId" = $1 AND k."memoryId" = l.id), '[]'))
           ORDER BY l."createdAt" DESC, l.id DESC)
      FROM learning l LEFT JOIN "Run" r ON r."agentId" = $1 AND r.id = l."sourceRunId"
        LEFT JOIN "Producer" p ON p."agentId" = $1 AND p.id = r."producerId"), '[]')
) AS context`;

const CONTEXT_QUERY = `query($instrument: String!, $at: DateTime) {
  tradingContext(instrument: $instrument, at: $at) {
    agentId instrument at
    entries {
      memoryId type scope status createdAt expiresAt expiryPolicy
      provenance { runId producerId producerName kind schedule evidenceBoundary runStatus }
      research { content metadata timeframe instruments links { linkType targetMemoryId } }
    }
    corrections {
      memoryId type scope status correctionTargetIds createdAt expiresAt
      provenance { runId producerId producerName kind schedule evidenceBoundary runStatus }
      research { content metadata timeframe instruments links { linkType targetMemoryId } }
    }
    learnings {
      id agentId type scope instruments content metadata timeframe createdAt expiresAt expiryPolicy
      provenance { runId producerId producerName kind schedule evidenceBoundary runStatus }
      links { linkType targetMemoryId }
    }
  }
}`;

interface ContextAnswer {
  entries: { memoryId: string; status: string; expiresAt: string | null; research: unknown }[];
  corrections: {
    memoryId: string;
    status: string;
    expiresAt: string | null;
    correctionTargetIds: string[];
  }[];
  learnings: { id: string }[];
}

/** What both answers must agree on: ids, statuses, expiries, correction targets, which research is shown, learnings. */
function digest(answer: ContextAnswer): string {
  const time = (value: string | null) => (value === null ? null : Date.parse(value));
  return JSON.stringify({
    entries: answer.entries.map((e) => [e.memoryId, e.status, time(e.expiresAt), e.research !== null]),
    corrections: answer.corrections.map((c) => [
      c.memoryId,
      c.status,
      time(c.expiresAt),
      c.correctionTargetIds,
    ]),
    learnings: answer.learnings.map((l) => l.id),
  });
}

/** A small deterministic PRNG so every run measures the same sample of (instrument, at). */
function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Path = (instrument: string, at: Date) => Promise<unknown>;

/** Latency percentiles of both paths over the same samples, alternating which goes first. */
async function measure(
  graphql: Path,
  baseline: Path,
  iterations: number,
  sample: () => { instrument: string; at: Date },
) {
  const graphqlMs: number[] = [];
  const baselineMs: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const { instrument, at } = sample();
    // Alternate which path goes first so neither always benefits from the other's cache warming.
    const order = i % 2 === 0 ? ([graphql, baseline] as const) : ([baseline, graphql] as const);
    for (const path of order) {
      const started = performance.now();
      await path(instrument, at);
      (path === graphql ? graphqlMs : baselineMs).push(performance.now() - started);
    }
  }
  const stats = (ms: number[]) => {
    ms.sort((a, b) => a - b);
    return { p50: percentile(ms, 50), p99: percentile(ms, 99) };
  };
  return { graphql: stats(graphqlMs), baseline: stats(baselineMs) };
}

export async function runContextBench(options: {
  databaseUrl: string;
  quick?: boolean;
}): Promise<ScenarioReport> {
  const log = (line: string) => console.error(line);
  const slots = options.quick ? QUICK_SLOTS : FULL_SLOTS;
  const end = endOf(slots);
  // A quick run (CI) proves the loader, the agreement check and the loops; its figures mean nothing.
  const [warmup, iterations, nowIterations] = options.quick ? [5, 10, 5] : [60, 300, 100];
  const url = await prepareDatabase(options.databaseUrl, slots, log);
  const agentId = (
    await (async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query<{ id: string }>('SELECT id FROM "Agent" WHERE name = $1', ['bench-main']))
          .rows[0]!;
      } finally {
        await client.end();
      }
    })()
  ).id;

  const db = await openDatabase({ databaseUrl: url, dataDir: '' });
  const events = createMemoryEvents();
  const server = createServer({
    db,
    events,
    adminToken: BENCH_ADMIN_TOKEN,
    logger: pino({ level: 'silent' }),
    now: () => end,
  });
  const baselinePool = new pg.Pool({ connectionString: url, max: 1 });

  // What one answer weighs and where its time goes: the response's bytes, and
  // how long the service held a database connection (its statements: network, PostgreSQL, the
  // driver's row parsing) against the rest (Node: GraphQL, the decision, serialising).
  const weight = { graphqlBytes: 0, sqlBytes: 0, heldMs: 0, totalMs: 0, answers: 0 };
  // Time with at least one connection held (statements may overlap: entries and learnings).
  let holding = 0;
  let holdingSince = 0;
  let heldMs = 0;
  for (const pool of Object.values(db.pools!)) {
    pool.on('acquire', () => {
      if (holding++ === 0) holdingSince = performance.now();
    });
    pool.on('release', () => {
      if (--holding === 0) heldMs += performance.now() - holdingSince;
    });
  }

  const graphql = async (instrument: string, at: Date): Promise<ContextAnswer> => {
    heldMs = 0;
    const started = performance.now();
    const response = await server.yoga.fetch('http://bench/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TRADING_TOKEN}` },
      body: JSON.stringify({ query: CONTEXT_QUERY, variables: { instrument, at: at.toISOString() } }),
    });
    const text = await response.text();
    weight.totalMs += performance.now() - started;
    weight.heldMs += heldMs;
    weight.graphqlBytes += Buffer.byteLength(text);
    weight.answers++;
    const body = JSON.parse(text) as { data?: { tradingContext: ContextAnswer }; errors?: unknown[] };
    if (body.errors?.length || !body.data)
      throw new Error(`tradingContext failed: ${JSON.stringify(body.errors)}`);
    return body.data.tradingContext;
  };
  const baseline = async (instrument: string, at: Date): Promise<ContextAnswer> => {
    const result = await baselinePool.query<{ context: ContextAnswer }>({
      name: 'bench_trading_context',
      text: BASELINE_SQL,
      values: [agentId, instrument, at],
    });
    const context = result.rows[0]!.context;
    weight.sqlBytes += Buffer.byteLength(JSON.stringify(context));
    return context;
  };

  const random = mulberry32(20261129);
  const from = Date.parse(START) + 3 * 86_400_000;
  const sample = () => ({
    instrument: INSTRUMENTS[Math.floor(random() * INSTRUMENTS.length)]!,
    at: new Date(from + Math.floor(random() * (end.getTime() - from))),
  });

  try {
    // Warm-up doubles as a check that both paths give the same answer.
    let shown = { entries: 0, corrections: 0, learnings: 0 };
    for (let i = 0; i < warmup; i++) {
      const { instrument, at } = sample();
      const [viaGraphql, viaSql] = [await graphql(instrument, at), await baseline(instrument, at)];
      if (digest(viaGraphql) !== digest(viaSql)) {
        throw new Error(
          `answers differ for ${instrument} at ${at.toISOString()}:\n${digest(viaGraphql)}\n${digest(viaSql)}`,
        );
      }
      shown = {
        entries: shown.entries + viaGraphql.entries.length,
        corrections: shown.corrections + viaGraphql.corrections.length,
        learnings: shown.learnings + viaGraphql.learnings.length,
      };
    }
    log(
      `context bench: answers agree; per context on average ${Math.round(shown.entries / warmup)} entries, ` +
        `${Math.round(shown.corrections / warmup)} corrections, ${Math.round(shown.learnings / warmup)} learnings`,
    );
    const bytes = { graphql: weight.graphqlBytes / weight.answers, sql: weight.sqlBytes / weight.answers };
    Object.assign(weight, { graphqlBytes: 0, sqlBytes: 0, heldMs: 0, totalMs: 0, answers: 0 });

    // Random instruments and instants over the year (as-of reads, C9), then Trading's usual case: at = now.
    const main = await measure(graphql, baseline, iterations, sample);
    const now = await measure(graphql, baseline, nowIterations, () => ({ ...sample(), at: end }));
    log(
      `context bench: hand-written SQL p50 ${main.baseline.p50.toFixed(2)} ms, p99 ${main.baseline.p99.toFixed(2)} ms ` +
        `(${iterations} iterations); at = now: GraphQL p50 ${now.graphql.p50.toFixed(2)} ms, p99 ` +
        `${now.graphql.p99.toFixed(2)} ms, SQL p50 ${now.baseline.p50.toFixed(2)} ms, p99 ${now.baseline.p99.toFixed(2)} ms`,
    );
    // Over the measured iterations (both loops): the mean split of one GraphQL answer.
    log(
      `context bench: one answer ≈ ${(bytes.graphql / 1024).toFixed(0)} KiB of GraphQL response ` +
        `(${(bytes.sql / 1024).toFixed(0)} KiB of JSON from the hand-written SQL); mean ` +
        `${(weight.totalMs / weight.answers).toFixed(2)} ms, of which a database connection held ` +
        `${(weight.heldMs / weight.answers).toFixed(2)} ms and Node the other ` +
        `${((weight.totalMs - weight.heldMs) / weight.answers).toFixed(2)} ms`,
    );
    const ratio = main.graphql.p50 / main.baseline.p50;
    const service = `p50 ${main.graphql.p50.toFixed(2)} ms, p99 ${main.graphql.p99.toFixed(2)} ms`;
    return {
      lines: [`context: ${ratio.toFixed(2)}x of hand-written SQL latency (${service})`],
      rows: [
        {
          row: 'context',
          ratio,
          of: 'hand-written SQL p50 latency',
          better: 'lower',
          figures: `${service}; SQL p50 ${main.baseline.p50.toFixed(2)} ms, p99 ${main.baseline.p99.toFixed(2)} ms`,
        },
      ],
    };
  } finally {
    await baselinePool.end();
    await server.close();
    await events.close();
    await db.close();
  }
}

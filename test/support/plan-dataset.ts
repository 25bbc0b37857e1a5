// A dataset with the browse bench's skew for plan tests (bench/browse-data.ts, smaller): one agent
// with most records, nine small ones (so a generic plan's "average agent" is a tenth of the table,
// as on the bench), types from 1 % to 50 % of an agent's records, instruments, six months of history.
// Set-based (INSERT … SELECT generate_series) and seeded by md5 of the record number, so every load
// is the same data; ANALYZE reads every row, so the statistics are the same every run too.
import { createHash } from 'node:crypto';
import pg from 'pg';
import type { RecordReadFilter } from '../../src/records/record-shape.js';

/** The newest record's createdAt: fixed, so windows and freshness mean the same rows every run. */
export const DATASET_END = new Date('2026-09-01T00:00:00.000Z');
const DAYS = 180;
const AGENTS = 10;
const INSTRUMENTS = ['BTC', 'ETH', 'SOL', 'kPEPE', 'DOGE', 'XRP', 'AVAX', 'LINK'];

/** Every agent's types and their shares. */
export const TYPE_SHARES = {
  market_structure: 50,
  funding: 20,
  orderflow: 12,
  volatility: 8,
  momentum: 5,
  trading_decision: 4,
  agent_learnings: 1,
} as const;

export interface PlanAgent {
  id: string;
  lastSeq: number;
}

/** The ids and values a statement of the service can be asked about in this dataset. */
export interface PlanDataset {
  records: number;
  /** 55 % of the records. */
  big: PlanAgent;
  /** One of the nine agents with 5 % each. */
  small: PlanAgent;
  /** An analysis producer of the big agent and a RUNNING run of it (liveness `R`). */
  producerId: string;
  /** The big agent's trader (its decisions carry idempotency keys). */
  traderId: string;
  runningRunId: string;
  operatorTokenId: string;
  /** A trading decision of the big agent in the middle of its history, its idempotency key and links. */
  recordId: string;
  idempotencyKey: string;
  linkedIds: string[];
  /** The record readers a `linkedFrom` selection may be restricted by (all three rules). */
  readable: Required<RecordReadFilter>;
}

const uuidOf = (seed: string) => {
  const hex = createHash('md5').update(seed).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};
const sqlUuid = (expr: string) => `md5(${expr})::uuid`;
const agentOf = (a: string) => sqlUuid(`'plan-agent-' || ${a}`);
const producerOf = (a: string, p: string) => sqlUuid(`'plan-prod-' || ${a} || '-' || ${p}`);
const runOf = (a: string, p: string, block: string) =>
  sqlUuid(`'plan-run-' || ${a} || '-' || ${p} || '-' || ${block}`);
const memoryOf = (n: string) => sqlUuid(`'plan-mem-' || ${n}`);

const KINDS = `(ARRAY['ANALYSIS','ANALYSIS','ANALYSIS','ANALYSIS','TRADING','REVIEW'])`;
const SCHEDULES = `(ARRAY['15m','1h','4h','1d'])`;
const SECONDS = `(ARRAY[900,3600,14400,86400])`;

/**
 * Record n (0 ≤ n < records): the big agent's (0) when n mod 20 < 11, else agent n mod 20 − 10;
 * createdAt spread evenly over DAYS before DATASET_END; r from md5(n) picks the type (TYPE_SHARES),
 * the producer (analysis types one of four schedules, expiring after two intervals; decisions the
 * trader, which links `considered` to two earlier records of its agent; learnings the reviewer,
 * half of them agent-wide, as C10 reads them) and one instrument of INSTRUMENTS (a quarter a second
 * one). Runs: one per producer and block of 144 consecutive n.
 */
function datasetStatements(records: number): string[] {
  const end = `'${DATASET_END.toISOString()}'::timestamptz`;
  const since = `${end} - interval '${DAYS + 1} days'`;
  const inst = `(ARRAY[${INSTRUMENTS.map((i) => `'${i}'`).join(',')}])`;
  let bound = 0;
  const typeCase = Object.entries(TYPE_SHARES)
    .map(([type, share]) => `WHEN r % 100 < ${(bound += share)} THEN '${type}'`)
    .join(' ');
  return [
    `INSERT INTO "Instrument" (id, active) SELECT unnest(${inst}), true`,
    `INSERT INTO "Agent" (id, name, "createdAt") SELECT ${agentOf('a')}, 'plan-agent-' || a, ${since} FROM generate_series(0, ${AGENTS - 1}) a`,
    `INSERT INTO "Producer" (id, "agentId", kind, name, schedule, enabled, "createdAt")
       SELECT ${producerOf('a', 'p')}, ${agentOf('a')}, ${KINDS}[p + 1]::"RunKind",
              (ARRAY['analysis-15m','analysis-1h','analysis-4h','analysis-1d','trader','reviewer'])[p + 1],
              CASE WHEN p < 4 THEN ${SCHEDULES}[p + 1] END, true, ${since}
       FROM generate_series(0, ${AGENTS - 1}) a, generate_series(0, 5) p`,
    `CREATE TEMP TABLE plan_rec ON COMMIT DROP AS
       WITH base AS (
         SELECT n, CASE WHEN n % 20 < 11 THEN 0 ELSE n % 20 - 10 END AS a,
                ('x' || lpad(left(md5('plan-' || n), 8), 16, '0'))::bit(64)::bigint AS r,
                ${end} - ((${records - 1} - n)::bigint * ${DAYS * 86_400_000} / ${records}) * interval '1 millisecond' AS created
         FROM generate_series(0, ${records - 1}) n),
       typed AS (SELECT *, CASE ${typeCase} END AS type FROM base)
       SELECT n, a, r, created, type,
              CASE type WHEN 'trading_decision' THEN 4 WHEN 'agent_learnings' THEN 5 ELSE (r / 100) % 4 END::int AS p,
              CASE WHEN type = 'agent_learnings' AND r % 2 = 0 THEN 'AGENT' ELSE 'INSTRUMENTS' END AS scope,
              (r / 400) % ${INSTRUMENTS.length} + 1 AS i1,
              CASE WHEN (r / 4000) % 4 = 0 THEN ((r / 400) % ${INSTRUMENTS.length} + 1 + (r / 16000) % ${INSTRUMENTS.length - 1}) % ${INSTRUMENTS.length} + 1 END AS i2,
              row_number() OVER (PARTITION BY a ORDER BY n) AS seq
       FROM typed`,
    `INSERT INTO "Run" (id, "agentId", "producerId", kind, schedule, status, "startedAt", "finishedAt", "tokenHash")
       SELECT ${runOf('a', 'p', 'n / 144')}, ${agentOf('a')}, ${producerOf('a', 'p')}, ${KINDS}[p + 1]::"RunKind",
              CASE WHEN p < 4 THEN ${SCHEDULES}[p + 1] END, 'SUCCEEDED'::"RunStatus",
              min(created) - interval '1 minute', max(created) + interval '1 minute', md5('plan-run-' || a || '-' || p || '-' || (n / 144))
       FROM plan_rec GROUP BY a, p, n / 144`,
    `INSERT INTO "Run" (id, "agentId", "producerId", kind, schedule, status, "startedAt", "tokenHash")
       VALUES (${sqlUuid(`'plan-running'`)}, ${agentOf('0')}, ${producerOf('0', '0')}, 'ANALYSIS', '15m', 'RUNNING', ${end}, md5('plan-running'))`,
    `INSERT INTO "Memory" (id, "agentId", type, scope, content, metadata, timeframe, "sourceRunId", "producerId", "runKind",
                           "isCorrection", "createdAt", "expiresAt", "expiryPolicy", "idempotencyKey", seq)
       SELECT ${memoryOf('n')}, ${agentOf('a')}, type, scope::"MemoryScope",
              CASE WHEN scope = 'AGENT' THEN 'Market-wide ' ELSE ${inst}[i1] || ' ' END || replace(type, '_', ' ') || ': ' || md5(n::text),
              json_build_object('bias', (ARRAY['long','short','flat'])[r % 3 + 1]),
              CASE WHEN p < 4 THEN ${SCHEDULES}[p + 1] END, ${runOf('a', 'p', 'n / 144')}, ${producerOf('a', 'p')},
              ${KINDS}[p + 1]::"RunKind", false, created,
              CASE WHEN p < 4 THEN created + 2 * ${SECONDS}[p + 1] * interval '1 second' END,
              CASE WHEN p < 4 THEN 'analysis_schedule_v2' END,
              CASE WHEN p = 4 THEN 'decision-' || n END, seq
       FROM plan_rec`,
    `INSERT INTO "MemoryTarget" ("memoryId", position, "instrumentId", "agentId", "producerId", "runKind", type, "isCorrection", "createdAt")
       SELECT ${memoryOf('n')}, t.position, ${inst}[t.i], ${agentOf('a')}, ${producerOf('a', 'p')}, ${KINDS}[p + 1]::"RunKind", type, false, created
       FROM plan_rec CROSS JOIN LATERAL (VALUES (0, i1), (1, i2)) t(position, i)
       WHERE scope = 'INSTRUMENTS' AND t.i IS NOT NULL`,
    `INSERT INTO "MemoryLink" ("agentId", "memoryId", position, "targetMemoryId", "linkType")
       SELECT ${agentOf('a')}, ${memoryOf('n')}, k, ${memoryOf('n - 20 * (k + 1)')}, 'considered'
       FROM plan_rec, generate_series(0, 1) k WHERE type = 'trading_decision' AND n >= 40`,
    `UPDATE "Agent" g SET "lastSeq" = c.seq FROM (SELECT a, max(seq) AS seq FROM plan_rec GROUP BY a) c WHERE g.id = ${agentOf('c.a')}`,
    `INSERT INTO "OperatorToken" (id, "agentId", label, "tokenHash", "createdAt")
       VALUES (${sqlUuid(`'plan-operator'`)}, ${agentOf('0')}, 'plans', md5('plan-operator'), ${since})`,
  ];
}

/** Loads the dataset into the migrated, empty database at `url` and analyses every table. */
export async function loadPlanDataset(url: string, records = 80_000): Promise<PlanDataset> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('BEGIN');
    // Compiling these set-based statements (JIT) would take longer than running them.
    await client.query('SET LOCAL synchronous_commit = off; SET LOCAL jit = off');
    // No named statement can use the search index (searches are unnamed); without it the load takes half the time.
    await client.query('DROP INDEX IF EXISTS "Memory_search_idx"');
    for (const statement of datasetStatements(records)) await client.query(statement);
    await client.query('COMMIT');
    // A sample of 300 × the target rows: every row of these tables, so the statistics are the same every run.
    await client.query('SET default_statistics_target = 1000');
    await client.query('VACUUM ANALYZE');
    const agent = async (a: number): Promise<PlanAgent> => {
      const id = uuidOf(`plan-agent-${a}`);
      const { rows } = await client.query<{ seq: string }>(
        'SELECT "lastSeq"::text AS seq FROM "Agent" WHERE id = $1',
        [id],
      );
      return { id, lastSeq: Number(rows[0]!.seq) };
    };
    const big = await agent(0);
    // A trading decision of the big agent in the middle of its history.
    const { rows } = await client.query<{ n: string }>(
      `SELECT substring("idempotencyKey" from 10) AS n FROM "Memory"
        WHERE "agentId" = $1 AND type = 'trading_decision' AND seq >= $2 ORDER BY seq LIMIT 1`,
      [big.id, Math.floor(big.lastSeq / 2)],
    );
    const decision = Number(rows[0]!.n);
    return {
      records,
      big,
      small: await agent(1),
      producerId: uuidOf('plan-prod-0-0'),
      traderId: uuidOf('plan-prod-0-4'),
      runningRunId: uuidOf('plan-running'),
      operatorTokenId: uuidOf('plan-operator'),
      recordId: uuidOf(`plan-mem-${decision}`),
      idempotencyKey: `decision-${decision}`,
      linkedIds: [uuidOf(`plan-mem-${decision - 20}`), uuidOf(`plan-mem-${decision - 40}`)],
      readable: { agentId: big.id, producerId: uuidOf('plan-prod-0-4'), type: 'trading_decision' },
    };
  } finally {
    await client.end();
  }
}

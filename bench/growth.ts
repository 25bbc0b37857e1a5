// growth (D5): what the hot reads and the write cost as an agent's history grows. The browse
// dataset's generator (browse-data.ts) at 0.5 M, 2 M and 8 M records at one density (the 90-day
// dataset's: a longer history, not a busier day), each in its own database; at each size the real
// service answers the trading context, the Memories tab's first page, the 24 h type counts and
// createMemory, each in a closed loop. The cost is PostgreSQL's CPU per request (its backends on that
// database), the figure that grows with the data; latency is shown beside it. Then a boundary burst:
// N agents × 30 producers each publish one record at once (every 5-minute boundary of a fleet),
// while a trader reads its context: drain time, write p99, context p99 during the burst.
import pg from 'pg';
import { TYPE_COUNTS_QUERY, OLDER_PAGE_QUERY } from '../src/web/queries.js';
import { BROWSE_OPERATOR_TOKEN, prepareBrowseDataset, type BrowseDataset } from './browse-data.js';
import { backendCpu } from './browse.js';
import { BENCH_ADMIN_TOKEN, closedLoop, gqlRequest, percentile, startServiceProcess } from './support.js';
import type { BenchRow, ScenarioReport } from './table.js';

const BASE_RECORDS = 500_000;
const BASE_DAYS = 90;
const INSTRUMENTS = ['BTC', 'ETH', 'SOL', 'kPEPE', 'DOGE', 'XRP', 'AVAX', 'LINK', 'ARB', 'OP'];
const PRODUCERS_PER_AGENT = 30;

const CONTEXT_QUERY = `query($instrument: String!) {
  tradingContext(instrument: $instrument) {
    entries { memoryId type status createdAt expiresAt
      provenance { runId producerName kind schedule evidenceBoundary runStatus }
      research { content metadata timeframe instruments links { linkType targetMemoryId } } }
    corrections { memoryId status correctionTargetIds research { content } }
    learnings { id content createdAt }
  }
}`;
const CREATE = `mutation($input: CreateMemoryInput!) {
  createMemory(input: $input) { __typename ... on MemoryWriteError { message } }
}`;

interface Op {
  name: string;
  /** One request of client `client`. */
  run(client: number): Promise<void>;
}

interface Cost {
  p50: number;
  p99: number;
  /** PostgreSQL CPU ms per request. */
  db: number;
  rps: number;
}

const figures = (c: Cost) =>
  `p50 ${c.p50.toFixed(1)} ms, p99 ${c.p99.toFixed(1)} ms, +${c.db.toFixed(2)} ms PostgreSQL`;

/** A size's label: 0.5M, 2M, 8M (or the record count of a small one). */
const sizeLabel = (records: number) =>
  records >= 100_000 ? `${(records / 1_000_000).toString()}M` : `${records}`;

async function measure(dataset: BrowseDataset, op: Op, clients: number, seconds: number): Promise<Cost> {
  const probe = new pg.Client({ connectionString: dataset.url });
  await probe.connect();
  try {
    await closedLoop(clients, Math.min(2, seconds), op.run); // warm-up
    const before = await backendCpu(probe, dataset.database);
    const { opsPerSecond, latencies } = await closedLoop(clients, seconds, op.run);
    const after = await backendCpu(probe, dataset.database);
    let db = 0;
    for (const [pid, cpu] of after) db += cpu - (before.get(pid) ?? 0);
    return {
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      db: (db * 1000) / Math.max(1, latencies.length),
      rps: opsPerSecond,
    };
  } finally {
    await probe.end();
  }
}

/** The ops on one dataset through one service: context, first page, type counts, a write. */
async function opsOn(url: string, dataset: BrowseDataset, writers: number): Promise<Op[]> {
  const operator = <T>(query: string, variables: Record<string, unknown>) =>
    gqlRequest<T>(url, BROWSE_OPERATOR_TOKEN, query, variables);
  // The big agent's 15m analysis producer (browse-data.ts names it by md5), one RUNNING run per writer.
  const { rows } = await withClient(dataset.url, (client) =>
    client.query<{ id: string }>(`SELECT id FROM "Producer" WHERE "agentId" = $1 AND name = 'analysis-15m'`, [
      dataset.agentId,
    ]),
  );
  const tokens = await Promise.all(
    Array.from({ length: writers }, async () => {
      const { startRun } = await gqlRequest<{ startRun: { token: string } }>(
        url,
        BENCH_ADMIN_TOKEN,
        'mutation($p: UUID!, $b: DateTime) { startRun(input: { producerId: $p, evidenceBoundary: $b }) { token } }',
        { p: rows[0]!.id, b: new Date(Math.floor(Date.now() / 900_000) * 900_000).toISOString() },
      );
      return startRun.token;
    }),
  );
  let n = 0;
  return [
    {
      name: 'context',
      run: async () =>
        void (await operator(CONTEXT_QUERY, { instrument: INSTRUMENTS[n++ % INSTRUMENTS.length] })),
    },
    {
      name: 'browse first page, all types',
      run: async () => void (await operator(OLDER_PAGE_QUERY, { filter: {}, first: 50, after: null })),
    },
    {
      name: 'types, 24 h window',
      run: async () =>
        void (await operator(TYPE_COUNTS_QUERY, {
          countFilter: { window: { rolling: 'LAST_24H', timeZone: 'UTC' } },
        })),
    },
    {
      name: 'write',
      run: async (client) => {
        const { createMemory } = await gqlRequest<{ createMemory: { __typename: string } }>(
          url,
          tokens[client % tokens.length]!,
          CREATE,
          {
            input: {
              type: 'funding',
              scope: 'INSTRUMENTS',
              instruments: ['BTC'],
              content: 'growth probe',
              timeframe: '15m',
            },
          },
        );
        if (createMemory.__typename !== 'CreateMemorySuccess') throw new Error(JSON.stringify(createMemory));
      },
    },
  ];
}

/**
 * Puts a growth dataset back as its load left it: the records and runs the write op and the bursts
 * added (everything after the dataset's newest record), the bursts' agents, the agent's seq. The
 * next run reuses the dataset (browse-data.ts, for up to 6 h) and must not read this run's writes:
 * 10 s of the write op add thousands of the big agent's records to the last 24 h, several times the
 * day the dataset holds, which the types row counts (+4.7–6.2 ms of PostgreSQL per request in the
 * second run of 2026-12-04 against +0.55 ms in the first). Run before a size is measured (an earlier
 * run's leftovers) and after.
 */
async function restoreDataset(dataset: BrowseDataset): Promise<number> {
  return withClient(dataset.url, async (client) => {
    await client.query('BEGIN');
    const removed = await client.query('DELETE FROM "Memory" WHERE "agentId" = $1 AND "createdAt" > $2', [
      dataset.agentId,
      dataset.end,
    ]);
    await client.query('DELETE FROM "Run" WHERE "agentId" = $1 AND "startedAt" > $2', [
      dataset.agentId,
      dataset.end,
    ]);
    await client.query(
      'UPDATE "Agent" SET "lastSeq" = (SELECT coalesce(max(seq), 0) FROM "Memory" WHERE "agentId" = $1) WHERE id = $1',
      [dataset.agentId],
    );
    const agents = await client.query(`DELETE FROM "Agent" WHERE name LIKE 'burst-%'`);
    await client.query(`DELETE FROM "AgentName" WHERE name LIKE 'burst-%'`);
    await client.query('COMMIT');
    // The deleted rows' index entries would cost the next index scans until a vacuum removes them.
    if (removed.rowCount || agents.rowCount) await client.query('VACUUM ANALYZE');
    return removed.rowCount ?? 0;
  });
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * The boundary burst: `agents` new agents with PRODUCERS_PER_AGENT scheduled producers each, one
 * RUNNING run per producer; then every run writes one record at once while one trader per agent
 * reads its context in a loop. Drain time: first write sent to last write answered.
 */
async function burst(url: string, agents: number) {
  const admin = <T>(query: string, variables: Record<string, unknown> = {}) =>
    gqlRequest<T>(url, BENCH_ADMIN_TOKEN, query, variables);
  const boundary = new Date(Math.floor(Date.now() / 300_000) * 300_000).toISOString();
  const writers: string[] = [];
  const readers: string[] = [];
  const stamp = Date.now().toString(36);
  for (let a = 0; a < agents; a++) {
    const { createAgent } = await admin<{ createAgent: { id: string } }>(
      'mutation($n: String!) { createAgent(input: { name: $n }) { id } }',
      { n: `burst-${stamp}-${a}` },
    );
    await admin(
      'mutation($a: UUID!) { setAgentInstruments(agentId: $a, instrumentIds: ["BTC", "ETH"]) { id } }',
      {
        a: createAgent.id,
      },
    );
    const producers = await Promise.all(
      Array.from({ length: PRODUCERS_PER_AGENT + 1 }, (_, p) =>
        admin<{ createProducer: { id: string } }>(
          'mutation($a: UUID!, $n: String!, $k: RunKind!, $s: String) { createProducer(input: { agentId: $a, kind: $k, name: $n, schedule: $s }) { id } }',
          {
            a: createAgent.id,
            n: `p${p}`,
            k: p < PRODUCERS_PER_AGENT ? 'ANALYSIS' : 'TRADING',
            s: p < PRODUCERS_PER_AGENT ? '5m' : null,
          },
        ),
      ),
    );
    const runs = await Promise.all(
      producers.map(({ createProducer }, p) =>
        admin<{ startRun: { token: string } }>(
          'mutation($p: UUID!, $b: DateTime) { startRun(input: { producerId: $p, evidenceBoundary: $b }) { token } }',
          { p: createProducer.id, b: p < PRODUCERS_PER_AGENT ? boundary : null },
        ),
      ),
    );
    writers.push(...runs.slice(0, PRODUCERS_PER_AGENT).map((run) => run.startRun.token));
    readers.push(runs[PRODUCERS_PER_AGENT]!.startRun.token);
  }
  let writing = true;
  const contextLatencies: number[] = [];
  const reading = Promise.all(
    readers.map(async (token) => {
      while (writing) {
        const started = performance.now();
        await gqlRequest(url, token, CONTEXT_QUERY, { instrument: 'BTC' });
        contextLatencies.push(performance.now() - started);
      }
    }),
  );
  const started = performance.now();
  const writeLatencies = await Promise.all(
    writers.map(async (token, i) => {
      const sent = performance.now();
      const { createMemory } = await gqlRequest<{ createMemory: { __typename: string } }>(
        url,
        token,
        CREATE,
        {
          input: {
            type: `signal_${i % 8}`,
            scope: 'INSTRUMENTS',
            instruments: ['BTC', 'ETH'],
            content: 'burst',
            timeframe: '5m',
          },
        },
      );
      if (createMemory.__typename !== 'CreateMemorySuccess') throw new Error(JSON.stringify(createMemory));
      return performance.now() - sent;
    }),
  );
  const drain = performance.now() - started;
  writing = false;
  await reading;
  writeLatencies.sort((a, b) => a - b);
  contextLatencies.sort((a, b) => a - b);
  return {
    writes: writers.length,
    drain,
    writeP99: percentile(writeLatencies, 99),
    contextP99: percentile(contextLatencies, 99),
    contexts: contextLatencies.length,
  };
}

export async function runGrowthBench(options: {
  databaseUrl: string;
  quick?: boolean;
}): Promise<ScenarioReport> {
  const quick = options.quick ?? false;
  const sizes = (process.env.BENCH_GROWTH_SIZES ?? (quick ? '2000,5000' : '500000,2000000,8000000'))
    .split(',')
    .map(Number);
  const seconds = Number(process.env.BENCH_GROWTH_SECONDS || (quick ? 0.5 : 8));
  const clients = quick ? 2 : 4;
  const progress = (message: string) => process.stderr.write(`growth: ${message}\n`);
  const costs = new Map<string, Cost[]>();
  for (const records of sizes) {
    const days = Math.max(1, Math.round((BASE_DAYS * records) / BASE_RECORDS));
    const dataset = await prepareBrowseDataset(options.databaseUrl, {
      log: progress,
      size: { records, days, database: `memory_bench_growth_${records}` },
    });
    const leftover = await restoreDataset(dataset);
    if (leftover) progress(`${sizeLabel(records)} records: removed ${leftover} records an earlier run wrote`);
    const service = await startServiceProcess(dataset.url);
    try {
      for (const op of await opsOn(service.url, dataset, clients)) {
        const cost = await measure(dataset, op, clients, seconds);
        progress(`${sizeLabel(records)} records (${days} days): ${op.name}: ${figures(cost)}`);
        costs.set(op.name, [...(costs.get(op.name) ?? []), cost]);
      }
    } finally {
      await service.close();
      await restoreDataset(dataset);
    }
  }
  const lines: string[] = [];
  const rows: BenchRow[] = [];
  const first = sizeLabel(sizes[0]!);
  for (const [name, measured] of costs) {
    measured.forEach((cost, index) => {
      if (index === 0) return;
      const ratio = cost.db / measured[0]!.db;
      const at = sizeLabel(sizes[index]!);
      lines.push(
        `growth: ${name} at ${at}: ${ratio.toFixed(2)}x the PostgreSQL CPU per request at ${first} (${figures(cost)})`,
      );
      rows.push({
        row: `growth: ${name}, ${at} vs ${first} records`,
        ratio,
        of: `PostgreSQL CPU per request at ${first}`,
        better: 'lower',
        figures: `${figures(cost)}; at ${first}: ${figures(measured[0]!)}`,
      });
    });
  }
  // The burst on the largest dataset's database (its agents are new: the burst measures the write path and the fleet).
  const largest = sizes[sizes.length - 1]!;
  const dataset = await prepareBrowseDataset(options.databaseUrl, {
    log: progress,
    size: {
      records: largest,
      days: Math.max(1, Math.round((BASE_DAYS * largest) / BASE_RECORDS)),
      database: `memory_bench_growth_${largest}`,
    },
  });
  const service = await startServiceProcess(dataset.url);
  try {
    for (const agents of quick ? [2] : [10, 100]) {
      progress(`burst: ${agents} agents × ${PRODUCERS_PER_AGENT} producers`);
      const result = await burst(service.url, agents);
      const text =
        `${result.writes} writes at once: drained in ${(result.drain / 1000).toFixed(2)} s ` +
        `(${((result.writes * 1000) / result.drain).toFixed(0)} writes/s), write p99 ${result.writeP99.toFixed(0)} ms, ` +
        `context p99 ${result.contextP99.toFixed(0)} ms over ${result.contexts} contexts during it`;
      lines.push(`growth: burst of ${agents} agents × ${PRODUCERS_PER_AGENT} producers: ${text}`);
      rows.push({
        row: `growth: burst, ${agents} agents × ${PRODUCERS_PER_AGENT} producers`,
        ratio: null,
        of: 'none',
        better: 'lower',
        figures: text,
      });
    }
  } finally {
    await service.close();
    await restoreDataset(dataset);
  }
  return { lines, rows };
}

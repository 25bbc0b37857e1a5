// write: 16 concurrent clients each sending createMemory (2 targets, 2 links) over HTTP, against the
// same inserts (record + targets + links in one transaction) as raw SQL through `pg`.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { storeMemory } from '../src/records/record-write.js';
import { openDatabase, type Database } from '../src/store/db.js';
import type { ScenarioReport } from './table.js';
import {
  BENCH_ADMIN_TOKEN,
  benchDatabase,
  closedLoop,
  gqlRequest,
  percentile,
  startServiceProcess,
} from './support.js';

export const WRITE_CLIENTS = 16;
const CLIENTS = WRITE_CLIENTS;

const CREATE = `mutation($input: CreateMemoryInput!) {
  createMemory(input: $input) { __typename ... on CreateMemorySuccess { memory { id } } ... on MemoryWriteError { message } }
}`;

/**
 * The write bench's clients on a running service: an agent with two instruments, a producer, one run
 * (token) per client and two seed records to link to; `write(client)` sends one createMemory.
 */
export async function prepareWriters(serviceUrl: string) {
  const admin = <T>(query: string, variables: Record<string, unknown> = {}) =>
    gqlRequest<T>(serviceUrl, BENCH_ADMIN_TOKEN, query, variables);
  for (const id of ['BTC', 'ETH'])
    await admin(`mutation { upsertInstrument(input: { id: "${id}" }) { id } }`);
  const { createAgent } = await admin<{ createAgent: { id: string } }>(
    'mutation { createAgent(input: { name: "bench" }) { id } }',
  );
  const agentId = createAgent.id;
  await admin(
    'mutation($a: UUID!) { setAgentInstruments(agentId: $a, instrumentIds: ["BTC", "ETH"]) { id } }',
    { a: agentId },
  );
  const { createProducer } = await admin<{ createProducer: { id: string } }>(
    'mutation($a: UUID!) { createProducer(input: { agentId: $a, kind: ANALYSIS, name: "bench", schedule: null }) { id } }',
    { a: agentId },
  );
  const tokens: string[] = [];
  let runId = '';
  for (let i = 0; i < CLIENTS; i++) {
    const { startRun } = await admin<{ startRun: { token: string; run: { id: string } } }>(
      'mutation($p: UUID!) { startRun(input: { producerId: $p }) { token run { id } } }',
      { p: createProducer.id },
    );
    tokens.push(startRun.token);
    runId = startRun.run.id;
  }
  const seedIds: string[] = [];
  for (let i = 0; i < 2; i++) {
    const result = await gqlRequest<{ createMemory: { memory: { id: string } } }>(
      serviceUrl,
      tokens[0]!,
      CREATE,
      { input: { type: 'seed', scope: 'AGENT', content: 'seed' } },
    );
    seedIds.push(result.createMemory.memory.id);
  }
  const input = {
    type: 'ema_handoff',
    scope: 'INSTRUMENTS',
    instruments: ['BTC', 'ETH'],
    content: 'BTC and ETH 5m: fast EMA below slow, bearish bias without confirmation.',
    metadata: { handoff_version: 1, observations: { fast_ema: 2689.21, slow_ema: 2691.1 } },
    timeframe: '5m',
    links: seedIds.map((targetMemoryId) => ({ targetMemoryId, linkType: 'evidence' })),
  };
  const write = async (client: number) => {
    const result = await gqlRequest<{ createMemory: { __typename: string } }>(
      serviceUrl,
      tokens[client]!,
      CREATE,
      { input },
    );
    if (result.createMemory.__typename !== 'CreateMemorySuccess') throw new Error(JSON.stringify(result));
  };
  return { agentId, producerId: createProducer.id, runId, seedIds, input, write };
}

export async function runWriteBench(options: {
  databaseUrl: string;
  seconds: number;
}): Promise<ScenarioReport> {
  const url = await benchDatabase(options.databaseUrl, 'memory_bench_write', true);
  const service = await startServiceProcess(url);
  try {
    const {
      agentId,
      producerId,
      runId,
      seedIds,
      input,
      write: graphqlOp,
    } = await prepareWriters(service.url);
    const pool = new pg.Pool({ connectionString: url, max: CLIENTS });
    const rawOp = async () => {
      const client = await pool.connect();
      try {
        const id = randomUUID();
        const now = new Date();
        await client.query('BEGIN');
        // L2: the agent's next seq, under its row lock until commit (as the service's write statement takes it).
        await client.query(
          `WITH next AS (UPDATE "Agent" SET "lastSeq" = "lastSeq" + 1 WHERE id = $2 RETURNING "lastSeq" AS seq)
           INSERT INTO "Memory" (id, "agentId", type, scope, content, metadata, timeframe, "sourceRunId", "producerId", "runKind", "isCorrection", "createdAt", "expiresAt", "expiryPolicy", seq)
           SELECT $1, $2, $3, 'INSTRUMENTS', $4, $5, $6, $7, $8, 'ANALYSIS', false, $9, $10, 'analysis_schedule_v2', seq FROM next`,
          [
            id,
            agentId,
            input.type,
            input.content,
            JSON.stringify(input.metadata),
            input.timeframe,
            runId,
            producerId,
            now,
            new Date(now.getTime() + 1_800_000),
          ],
        );
        await client.query(
          `INSERT INTO "MemoryTarget" ("memoryId", position, "instrumentId", "agentId", "producerId", "runKind", type, "isCorrection", "createdAt")
           VALUES ($1, 0, 'BTC', $2, $3, 'ANALYSIS', $4, false, $5), ($1, 1, 'ETH', $2, $3, 'ANALYSIS', $4, false, $5)`,
          [id, agentId, producerId, input.type, now],
        );
        await client.query(
          `INSERT INTO "MemoryLink" ("agentId", "memoryId", position, "targetMemoryId", "linkType")
           VALUES ($4, $1, 0, $2, 'evidence'), ($4, $1, 1, $3, 'evidence')`,
          [id, seedIds[0], seedIds[1], agentId],
        );
        await client.query('COMMIT');
      } finally {
        client.release();
      }
    };
    // D2: the service's record write in both forms (WRITE_FORM), sent straight to PostgreSQL: the
    // one statement (one round trip, prepared on the write pool) and the form Citus can route
    // (single-shard statements in one transaction, src/records/routable-write.ts).
    const direct = await openDatabase({ databaseUrl: url, dataDir: '' });
    const routed = await openDatabase({ databaseUrl: url, dataDir: '', writeForm: 'transaction' });
    const storeOp = (db: Database) => async () => {
      const now = new Date();
      await storeMemory(db, {
        id: randomUUID(),
        agentId,
        type: input.type,
        scope: 'INSTRUMENTS',
        content: input.content,
        metadata: input.metadata,
        timeframe: input.timeframe,
        sourceRunId: runId,
        producerId,
        runKind: 'ANALYSIS',
        createdAt: now,
        expiresAt: new Date(now.getTime() + 1_800_000),
        expiryPolicy: 'analysis_schedule_v2',
        idempotencyKey: null,
        requestHash: null,
        instruments: input.instruments,
        links: input.links,
      });
    };
    const statementOp = storeOp(direct);
    const routableOp = storeOp(routed);
    // Warm up every path (2 s; a quick run's measurement time), then measure each for the same duration.
    const warmup = Math.min(2, options.seconds);
    await closedLoop(CLIENTS, warmup, graphqlOp);
    await closedLoop(CLIENTS, warmup, rawOp);
    await closedLoop(CLIENTS, warmup, statementOp);
    await closedLoop(CLIENTS, warmup, routableOp);
    const raw = await closedLoop(CLIENTS, options.seconds, rawOp);
    const graphql = await closedLoop(CLIENTS, options.seconds, graphqlOp);
    const statement = await closedLoop(CLIENTS, options.seconds, statementOp);
    const transaction = await closedLoop(CLIENTS, options.seconds, routableOp);
    await pool.end();
    await direct.close();
    await routed.close();
    const ratio = graphql.opsPerSecond / raw.opsPerSecond;
    const mine = `${graphql.opsPerSecond.toFixed(0)} ops/s, p99 ${percentile(graphql.latencies, 99).toFixed(1)} ms`;
    const floor = `${raw.opsPerSecond.toFixed(0)} ops/s, p99 ${percentile(raw.latencies, 99).toFixed(1)} ms`;
    const one = `${statement.opsPerSecond.toFixed(0)} ops/s, p99 ${percentile(statement.latencies, 99).toFixed(1)} ms`;
    const split = `${transaction.opsPerSecond.toFixed(0)} ops/s, p99 ${percentile(transaction.latencies, 99).toFixed(1)} ms`;
    const routable = transaction.opsPerSecond / statement.opsPerSecond;
    return {
      lines: [
        `write: ${ratio.toFixed(2)}x of raw SQL throughput (${mine}) — raw SQL ${floor}`,
        `write, WRITE_FORM=transaction (Citus-routable): ${routable.toFixed(2)}x the one statement's throughput ` +
          `on one PostgreSQL (single-shard statements in one transaction ${split}; the one statement ${one})`,
      ],
      rows: [
        { row: 'write', ratio, of: 'raw SQL ops/s', better: 'higher', figures: `${mine}; raw SQL ${floor}` },
        {
          row: 'write: WRITE_FORM=transaction (Citus-routable)',
          ratio: routable,
          of: "the service's one statement ops/s",
          better: 'higher',
          figures: `${split}; one statement ${one}`,
        },
      ],
    };
  } finally {
    await service.close();
  }
}

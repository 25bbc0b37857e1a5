// Round trips proven, the Pothos way: the statements one operation sends to the database, the token
// lookup included, as inline snapshots. They document today's counts; when a change alters them,
// `npx vitest run test/api/round-trips.test.ts -u` rewrites the snapshots and the diff shows how.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCursor } from '../../src/domain/cursor.js';
import { builder } from '../../src/schema/builder.js';
import { checkUnusedQueries } from '../../src/schema/unused-query-check.js';
import {
  CREATE_MEMORY,
  createAgentFixture,
  startHarness,
  startRun,
  writeOk,
  type AgentFixture,
  type Harness,
} from '../support/harness.js';
import { createTestDatabase } from '../support/db.js';
import { PARTITIONS, partitionByAgent, partitionsOf } from '../support/partitioned.js';
import { describeStatement, StatementRecorder } from '../support/statement-recorder.js';
import { settleOpenSubscriptions } from '../support/live.js';

const recorder = new StatementRecorder();
let h: Harness;
let fx: AgentFixture;
let analysis: { runId: string; token: string };
let trading: { runId: string; token: string };
let seeded: Record<string, any>[];

beforeAll(async () => {
  // The periodic L4 token check of open subscriptions is one statement per interval, not per
  // operation: it must not fire inside a recording.
  h = await startHarness({ recorder, sessionCheckMs: 3_600_000 });
  h.clock.set('2026-03-02T10:00:00Z');
  fx = await createAgentFixture(h, { instruments: ['BTC', 'ETH'] });
  analysis = await startRun(h, fx.producers.adhoc!.id);
  trading = await startRun(h, fx.producers.trading!.id);
  const review = await startRun(h, fx.producers.review!.id);
  const write = (token: string, input: Record<string, unknown>) => {
    h.clock.advance(1000);
    return writeOk(h, token, input);
  };
  const expiresAt = '2026-03-03T00:00:00Z';
  const first = await write(analysis.token, {
    type: 'ema_handoff',
    scope: 'INSTRUMENTS',
    instruments: ['ETH'],
    content: 'ETH above the 200 EMA',
    metadata: { expiresAt },
  });
  const second = await write(analysis.token, {
    type: 'funding',
    scope: 'INSTRUMENTS',
    instruments: ['ETH', 'BTC'],
    content: 'funding turns positive',
    metadata: { expiresAt },
    links: [{ targetMemoryId: first.id, linkType: 'supports' }],
  });
  const correction = await write(analysis.token, {
    type: 'correction',
    scope: 'INSTRUMENTS',
    instruments: ['ETH'],
    content: 'it was the 100 EMA',
    metadata: { expiresAt },
    links: [{ targetMemoryId: first.id, linkType: 'corrects' }],
  });
  const learning = await write(review.token, { type: 'agent_learnings', scope: 'AGENT', content: 'wait' });
  seeded = [first, second, correction, learning];
  // The operator's and the trading run's token identities are read once and remembered (S14
  // item 2): the recordings below show a known token's requests, each checking the token inside
  // its own statement.
  await h.ok('{ memoryTypes { type } }', {}, fx.operatorToken);
  await h.ok('{ tradingContext(instrument: "BTC") { instrument } }', {}, trading.token);
});
afterAll(async () => {
  await h.close();
});

const PROVENANCE = 'provenance { runId producerName kind runStatus }';
const LINKS = 'links { linkType targetMemoryId }';

/** A memoryAdded subscriber over SSE through `yoga.fetch`: its edges as they arrive. */

async function subscribe(token: string, variables: Record<string, unknown> = {}) {
  const response = await h.fetch('/graphql', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({
      query: `subscription($filter: MemoryFilter, $after: String) {
        memoryAdded(filter: $filter, after: $after) { cursor node { id type instruments ${LINKS} ${PROVENANCE} } }
      }`,
      variables,
    }),
  });
  const reader = response.body!.getReader();
  const edges: Record<string, any>[] = [];
  const decoder = new TextDecoder();
  let buffer = '';
  const read = async (count: number) => {
    while (edges.length < count) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`stream ended after ${edges.length} edges`);
      buffer += decoder.decode(value, { stream: true });
      let split;
      while ((split = buffer.indexOf('\n\n')) >= 0) {
        const data = buffer
          .slice(0, split)
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5))
          .join('\n');
        buffer = buffer.slice(split + 2);
        if (!data.trim()) continue;
        const payload = JSON.parse(data) as { data?: { memoryAdded: Record<string, any> }; errors?: unknown };
        if (!payload.data) throw new Error(`subscription failed: ${JSON.stringify(payload.errors)}`);
        edges.push(payload.data.memoryAdded);
      }
    }
    return edges;
  };
  // Reading pulls the stream, which starts listening (and replaying).
  const first = read(1);
  first.catch(() => {});
  return {
    /** Resolves once `count` edges arrived. */
    edges: (count: number) => (count === 1 ? first : first.then(() => read(count))),
    stop: () => reader.cancel(),
  };
}

describe('round trips', () => {
  it('B2: round trips of a browse page (targets, links and provenance selected)', async () => {
    let page: Record<string, any> = {};
    const trips = await recorder.during(async () => {
      page = await h.ok(
        `{ memories(first: 20) {
            edges { cursor node { id type content instruments createdAt ${LINKS} ${PROVENANCE} } }
            pageInfo { hasNextPage endCursor } } }`,
        {},
        fx.operatorToken,
      );
    });
    expect(page.memories.edges).toHaveLength(seeded.length);
    expect(trips).toMatchInlineSnapshot(`
      {
        "count": 1,
        "statements": [
          "sql: WITH page SELECT m.*, ARRAY(SELECT t.instrumentId FROM MemoryTarget t WHERE t.agentId = $ AND t.memoryId = m.id ORDER BY t.position) AS instruments, (SELECT coalesce(json_agg(json_build_object('…",
        ],
      }
    `);
  });

  it('S1: round trips of one record by id (targets, links and provenance selected)', async () => {
    let found: Record<string, any> = {};
    const trips = await recorder.during(async () => {
      found = await h.ok(
        `query($id: UUID!) { memory(id: $id) { id content metadata instruments ${LINKS} ${PROVENANCE} } }`,
        { id: seeded[1]!.id },
        fx.operatorToken,
      );
    });
    expect(found.memory).toMatchObject({
      id: seeded[1]!.id,
      instruments: ['ETH', 'BTC'],
      links: [{ targetMemoryId: seeded[0]!.id, linkType: 'supports' }],
      provenance: { runId: analysis.runId, kind: 'ANALYSIS', runStatus: 'RUNNING' },
    });
    expect(trips).toMatchInlineSnapshot(`
      {
        "count": 1,
        "statements": [
          "sql: WITH record SELECT m.*, ARRAY(SELECT t.instrumentId FROM MemoryTarget t WHERE t.agentId = $ AND t.memoryId = m.id ORDER BY t.position) AS instruments, (SELECT coalesce(json_agg(json_build_object…",
        ],
      }
    `);
  });

  it('B6: round trips of one record with what links to it (linkedFrom in the same statement)', async () => {
    let found: Record<string, any> = {};
    const trips = await recorder.during(async () => {
      found = await h.ok(
        `query($id: UUID!) { memory(id: $id) { id ${LINKS} linkedFrom { linkType sourceMemoryId sourceType } } }`,
        { id: seeded[0]!.id },
        fx.operatorToken,
      );
    });
    expect(found.memory.linkedFrom).toEqual([
      { linkType: 'corrects', sourceMemoryId: seeded[2]!.id, sourceType: 'correction' },
      { linkType: 'supports', sourceMemoryId: seeded[1]!.id, sourceType: 'funding' },
    ]);
    expect(trips).toMatchInlineSnapshot(`
      {
        "count": 1,
        "statements": [
          "sql: WITH record SELECT m.*, (SELECT coalesce(json_agg(json_build_object('linkType', l.linkType, 'targetMemoryId', l.targetMemoryId) ORDER BY l.position), '[]') FROM MemoryLink l WHERE l.agentId = $ …",
        ],
      }
    `);
  });

  it('C1: round trips of a trading context (entries, corrections, learnings)', async () => {
    let context: Record<string, any> = {};
    const trips = await recorder.during(async () => {
      ({ tradingContext: context } = await h.ok(
        `{ tradingContext(instrument: "ETH") {
            entries { memoryId status ${PROVENANCE} research { content instruments ${LINKS} } }
            corrections { memoryId status correctionTargetIds ${PROVENANCE} research { content } }
            learnings { id content instruments ${PROVENANCE} } } }`,
        {},
        trading.token,
      ));
    });
    expect(context.entries).toHaveLength(2);
    expect(context.corrections).toHaveLength(1);
    expect(context.learnings).toHaveLength(1);
    expect(trips).toMatchInlineSnapshot(`
      {
        "count": 2,
        "statements": [
          "prisma: WITH RECURSIVE instrument_group, agent_group, kept, picked, producer, row, run SELECT json_agg(json_build_object( 'id', m.id, 'producerId', m.producerId, 'type', m.type, 'scope', m.scope, 'cr…",
          "sql: WITH learnings SELECT m.*, ARRAY(SELECT t.instrumentId FROM MemoryTarget t WHERE t.agentId = $ AND t.memoryId = m.id ORDER BY t.position) AS instruments, r.id AS run_id, r.producerId AS run_prod…",
        ],
      }
    `);
  });

  it('B7: round trips of an agent’s runs page (the runs, then every record count in one statement)', async () => {
    const trips = await recorder.during(() =>
      h.ok(
        'query($id: UUID!) { agent(id: $id) { runs(first: 10) { edges { node { id status recordCount empty } } } } }',
        { id: fx.agentId },
        fx.operatorToken,
      ),
    );
    expect(trips).toMatchInlineSnapshot(`
      {
        "count": 4,
        "statements": [
          "sql: SELECT revokedAt FROM OperatorToken WHERE agentId = $ AND id = $",
          "prisma: SELECT id, name, createdAt, lastSeq FROM Agent WHERE (id = $ AND id = $) LIMIT $ OFFSET $",
          "prisma: SELECT agentId, id, producerId, kind::text, schedule, evidenceBoundary, status::text, startedAt, finishedAt, tokenHash FROM Run WHERE agentId = $ ORDER BY startedAt DESC, id DESC LIMIT $ OFFS…",
          "sql: SELECT r.id AS runId, ( SELECT count(*)::int FROM Memory m WHERE m.agentId = $ AND m.createdAt >= r.startedAt AND m.createdAt <= coalesce(r.finishedAt, 'infinity') AND m.sourceRunId = r.id) AS c…",
        ],
      }
    `);
  });

  it('B8: round trips of producer health (producers, then cycles and lateness)', async () => {
    const trips = await recorder.during(() =>
      h.ok(
        '{ producerHealth { producer { name } status lastRun { id recordCount } cyclesExpected latenessP95Seconds } }',
        {},
        fx.operatorToken,
      ),
    );
    expect(trips).toMatchInlineSnapshot(`
      {
        "count": 3,
        "statements": [
          "sql: SELECT revokedAt FROM OperatorToken WHERE agentId = $ AND id = $",
          "sql: SELECT p.id, p.agentId, p.kind, p.name, p.schedule, p.enabled, (extract(epoch FROM p.createdAt) * 1000)::float8 AS createdAt, coalesce((SELECT json_agg(json_build_object('enabled', e.enabled, 'a…",
          "sql: WITH rec SELECT (SELECT json_agg(json_build_object('producerId', c.producerId, 'boundary', (extract(epoch FROM c.boundary) * 1000)::float8, 'freshOnArrival', c.fresh)) FROM (SELECT producerId, b…",
        ],
      }
    `);
  });

  it('B9: round trips of the freshness board (one context per selected instrument, the decisions, the producers)', async () => {
    const trips = await recorder.during(() =>
      h.ok(
        '{ freshnessBoard { instruments { instrument groups { producer { name } state } latestDecision { id } } } }',
        {},
        fx.operatorToken,
      ),
    );
    expect(trips).toMatchInlineSnapshot(`
      {
        "count": 6,
        "statements": [
          "sql: SELECT revokedAt FROM OperatorToken WHERE agentId = $ AND id = $",
          "prisma: SELECT agentId, id, instrumentId FROM AgentInstrument WHERE (agentId = $ AND selectedAt <= $ AND (deselectedAt IS NULL OR deselectedAt > $)) ORDER BY instrumentId ASC OFFSET $",
          "prisma: WITH RECURSIVE instrument_group, agent_group, kept, picked, producer, row, run SELECT json_agg(json_build_object( 'id', m.id, 'producerId', m.producerId, 'type', m.type, 'scope', m.scope, 'cr…",
          "prisma: WITH RECURSIVE instrument_group, agent_group, kept, picked, producer, row, run SELECT json_agg(json_build_object( 'id', m.id, 'producerId', m.producerId, 'type', m.type, 'scope', m.scope, 'cr…",
          "sql: SELECT i.instrument, d.id, ev.fresh, ev.stale FROM unnest($::text[]) AS i(instrument) LEFT JOIN LATERAL ( SELECT t.memoryId AS id, t.createdAt FROM Producer p CROSS JOIN LATERAL ( SELECT t.memor…",
          "prisma: SELECT agentId, id, kind::text, name, schedule, enabled, createdAt FROM Producer WHERE agentId = $ OFFSET $",
        ],
      }
    `);
  });

  it('W1: round trips of a write (the record shown with targets, links and provenance)', async () => {
    let result: Record<string, any> = {};
    const input = {
      type: 'note',
      scope: 'INSTRUMENTS',
      instruments: ['BTC'],
      content: 'a write',
      links: [{ targetMemoryId: seeded[0]!.id, linkType: 'supports' }],
    };
    const trips = await recorder.during(async () => {
      result = await h.ok(CREATE_MEMORY, { input }, analysis.token);
    });
    expect(result.createMemory.__typename).toBe('CreateMemorySuccess');
    expect(trips).toMatchInlineSnapshot(`
      {
        "count": 1,
        "statements": [
          "sql: WITH writer, selected, linkable, valid, next, m, t, l SELECT (SELECT id FROM m) AS id, (SELECT seq::text FROM m) AS seq, (SELECT status FROM writer) AS run_status, selected.ids AS selected, link…",
        ],
      }
    `);
  });

  it('W8: round trips of an idempotent retry', async () => {
    const input = { type: 'note', scope: 'AGENT', content: 'once', idempotencyKey: 'round-trips-1' };
    const original = await writeOk(h, analysis.token, input);
    let retried: Record<string, any> = {};
    const trips = await recorder.during(async () => {
      retried = await h.ok(CREATE_MEMORY, { input }, analysis.token);
    });
    expect(retried.createMemory.memory.id).toBe(original.id);
    expect(trips).toMatchInlineSnapshot(`
      {
        "count": 2,
        "statements": [
          "sql: WITH record SELECT m.*, ARRAY(SELECT t.instrumentId FROM MemoryTarget t WHERE t.agentId = $ AND t.memoryId = m.id ORDER BY t.position) AS instruments, (SELECT coalesce(json_agg(json_build_object…",
          "sql: SELECT status::text AS status FROM Run WHERE agentId = $ AND id = $",
        ],
      }
    `);
  });

  it('L1: round trips of one event delivered to two subscribers of the same selection', async () => {
    const subscribers = [await subscribe(fx.operatorToken), await subscribe(fx.operatorToken)];
    expect(await settleOpenSubscriptions(h.fetch, 2)).toBe(2);
    const record = seeded[1]!;
    // Announced as the next record of the agent: a seq at or below the committed one is a duplicate (L2).
    const { lastSeq } = await h.db.prisma.agent.findUniqueOrThrow({ where: { id: fx.agentId } });
    const trips = await recorder.during(async () => {
      // What writeMemory does once its record committed (the write's own statements are W1's).
      await h.events.publishMemoryAdded({
        id: record.id,
        agentId: fx.agentId,
        type: record.type,
        createdAt: new Date(record.createdAt),
        seq: Number(lastSeq) + 1,
        instruments: record.instruments,
        producerId: fx.producers.adhoc!.id,
        runKind: 'ANALYSIS',
        expiresAt: new Date(record.expiresAt),
      });
      for (const subscriber of subscribers) expect((await subscriber.edges(1))[0]!.node.id).toBe(record.id);
    });
    for (const subscriber of subscribers) await subscriber.stop();
    expect(trips).toMatchInlineSnapshot(`
      {
        "count": 1,
        "statements": [
          "sql: WITH record SELECT m.*, ARRAY(SELECT t.instrumentId FROM MemoryTarget t WHERE t.agentId = $ AND t.memoryId = m.id ORDER BY t.position) AS instruments, (SELECT coalesce(json_agg(json_build_object…",
        ],
      }
    `);
  });

  it('L2: round trips of a subscription resumed with `after` (two records replayed)', async () => {
    const after = encodeCursor({
      createdAt: new Date('2026-03-02T00:00:00Z'),
      id: '00000000-0000-4000-8000-000000000000',
    });
    let stop = async () => {};
    const trips = await recorder.during(async () => {
      // Not the record L1 delivered: its read is shared for a few seconds (SharedLoads), and would not be sent again.
      const subscriber = await subscribe(fx.operatorToken, {
        after,
        filter: { types: ['ema_handoff', 'correction'] },
      });
      stop = subscriber.stop;
      const edges = await subscriber.edges(2);
      expect(edges.map((edge) => edge.node.id)).toEqual([seeded[0]!.id, seeded[2]!.id]);
    });
    await stop();
    expect(trips).toMatchInlineSnapshot(`
      {
        "count": 6,
        "statements": [
          "sql: SELECT revokedAt FROM OperatorToken WHERE agentId = $ AND id = $",
          "prisma: SELECT MIN(seq) AS _min$seq FROM (SELECT seq FROM Memory WHERE (agentId = $ AND createdAt >= $ AND (createdAt > $ OR (createdAt = $ AND id > $))) OFFSET $) AS sub",
          "prisma: SELECT id, lastSeq FROM Agent WHERE (id = $ AND 1=1) LIMIT $ OFFSET $",
          "sql: SELECT m.id, m.type, m.createdAt, m.seq::text AS seq, m.producerId, m.runKind, m.expiresAt, ARRAY(SELECT t.instrumentId FROM MemoryTarget t WHERE t.agentId = $ AND t.memoryId = m.id ORDER BY t.p…",
          "sql: WITH record SELECT m.*, ARRAY(SELECT t.instrumentId FROM MemoryTarget t WHERE t.agentId = $ AND t.memoryId = m.id ORDER BY t.position) AS instruments, (SELECT coalesce(json_agg(json_build_object…",
          "sql: WITH record SELECT m.*, ARRAY(SELECT t.instrumentId FROM MemoryTarget t WHERE t.agentId = $ AND t.memoryId = m.id ORDER BY t.position) AS instruments, (SELECT coalesce(json_agg(json_build_object…",
        ],
      }
    `);
  });

  // Transactions look the same on both databases: the observer reports BEGIN and COMMIT itself.
  it('C9: round trips of creating a producer (one Prisma transaction that starts its enablement history)', async () => {
    const trips = await recorder.during(() =>
      h.ok('mutation($i: CreateProducerInput!) { createProducer(input: $i) { id name enabled } }', {
        i: { agentId: fx.agentId, kind: 'ANALYSIS', name: 'round-trips', schedule: null },
      }),
    );
    expect(trips).toMatchInlineSnapshot(`
      {
        "count": 6,
        "statements": [
          "prisma: BEGIN",
          "prisma: SELECT id, name, createdAt, lastSeq FROM Agent WHERE (id = $ AND 1=1) LIMIT $ OFFSET $",
          "prisma: INSERT INTO Producer (id,agentId,kind,name,schedule,enabled,createdAt) VALUES ($,$,CAST($::text AS RunKind),$,$,$,$) RETURNING agentId, id, kind::text, name, schedule, enabled, createdAt",
          "prisma: INSERT INTO ProducerEnablement (id,agentId,producerId,enabled,changedAt) VALUES ($,$,$,$,$) RETURNING agentId, id, producerId, enabled, changedAt",
          "prisma: COMMIT",
          "prisma: SELECT agentId, id, kind::text, name, schedule, enabled, createdAt FROM Producer WHERE ((agentId = $ AND id = $) AND 1=1) LIMIT $ OFFSET $",
        ],
      }
    `);
  });

  it('I3: round trips of importing two records (one driver transaction)', async () => {
    const item = { agentId: fx.agentId, type: 'legacy', scope: 'AGENT', createdAt: '2025-01-01T00:00:00Z' };
    const trips = await recorder.during(() =>
      h.ok('mutation($i: [ImportMemoryInput!]!) { importMemories(input: $i) { id } }', {
        i: [
          { ...item, content: 'one' },
          { ...item, content: 'two' },
        ],
      }),
    );
    expect(trips).toMatchInlineSnapshot(`
      {
        "count": 7,
        "statements": [
          "sql: BEGIN",
          "sql: SELECT 1 FROM Agent WHERE id = $",
          "sql: WITH writer, selected, linkable, valid, next, m, t, l SELECT (SELECT id FROM m) AS id, (SELECT seq::text FROM m) AS seq, (SELECT status FROM writer) AS run_status, selected.ids AS selected, link…",
          "sql: SELECT 1 FROM Agent WHERE id = $",
          "sql: WITH writer, selected, linkable, valid, next, m, t, l SELECT (SELECT id FROM m) AS id, (SELECT seq::text FROM m) AS seq, (SELECT status FROM writer) AS run_status, selected.ids AS selected, link…",
          "sql: COMMIT",
          "sql: WITH record SELECT m.* FROM record m",
        ],
      }
    `);
  });

  it('D2: round trips of a write and an import with WRITE_FORM=transaction (single-shard statements)', async () => {
    const routed = await startHarness({ recorder, sessionCheckMs: 3_600_000, writeForm: 'transaction' });
    try {
      const agent = await createAgentFixture(routed, { instruments: ['BTC', 'ETH'] });
      const run = await startRun(routed, agent.producers.adhoc!.id);
      const target = await writeOk(routed, run.token, { type: 'note', scope: 'AGENT', content: 'target' });
      const input = {
        type: 'note',
        scope: 'INSTRUMENTS',
        instruments: ['BTC', 'ETH'],
        content: 'a write',
        links: [{ targetMemoryId: target.id, linkType: 'supports' }],
      };
      const write = await recorder.during(() => routed.ok(CREATE_MEMORY, { input }, run.token));
      const item = {
        agentId: agent.agentId,
        type: 'legacy',
        scope: 'AGENT',
        createdAt: '2025-01-01T00:00:00Z',
      };
      const imported = await recorder.during(() =>
        routed.ok('mutation($i: [ImportMemoryInput!]!) { importMemories(input: $i) { id } }', {
          i: [{ ...item, content: 'one', links: [{ targetMemoryId: target.id, linkType: 'evidence' }] }],
        }),
      );
      expect({ write, imported }).toMatchInlineSnapshot(`
        {
          "imported": {
            "count": 8,
            "statements": [
              "sql: BEGIN",
              "sql: SELECT 1 FROM Agent WHERE id = $",
              "sql: SELECT (SELECT 'RUNNING'::text AS status) AS run_status, (SELECT coalesce(array_agg(i.id), '{}') AS ids FROM Instrument i WHERE i.id = ANY($::text[])) AS selected, (SELECT coalesce(array_agg(m.i…",
              "sql: UPDATE Agent SET lastSeq = lastSeq + 1 WHERE id = $ RETURNING lastSeq::text AS seq",
              "sql: INSERT INTO Memory (id, agentId, type, scope, content, metadata, timeframe, sourceRunId, producerId, runKind, isCorrection, createdAt, expiresAt, expiryPolicy, idempotencyKey, requestHash, seq) …",
              "sql: INSERT INTO MemoryLink (agentId, memoryId, position, targetMemoryId, linkType) VALUES ($, $, 0, $::uuid, $)",
              "sql: COMMIT",
              "sql: WITH record SELECT m.* FROM record m",
            ],
          },
          "write": {
            "count": 7,
            "statements": [
              "sql: BEGIN",
              "sql: SELECT (SELECT r.status::text AS status FROM Run r WHERE r.agentId = $ AND r.id = $ FOR SHARE) AS run_status, (SELECT coalesce(array_agg(s.instrumentId), '{}') AS ids FROM AgentInstrument s JOIN…",
              "sql: UPDATE Agent SET lastSeq = lastSeq + 1 WHERE id = $ RETURNING lastSeq::text AS seq",
              "sql: INSERT INTO Memory (id, agentId, type, scope, content, metadata, timeframe, sourceRunId, producerId, runKind, isCorrection, createdAt, expiresAt, expiryPolicy, idempotencyKey, requestHash, seq) …",
              "sql: INSERT INTO MemoryTarget (memoryId, position, instrumentId, agentId, producerId, runKind, type, isCorrection, createdAt) VALUES ($, 0, $, $, $, $::RunKind, $, $, $), ($, 1, $, $, $, $::RunKind, …",
              "sql: INSERT INTO MemoryLink (agentId, memoryId, position, targetMemoryId, linkType) VALUES ($, $, 0, $::uuid, $)",
              "sql: COMMIT",
            ],
          },
        }
      `);
    } finally {
      await routed.close();
    }
  });

  it("Pothos: resolvers that leave the planned query unused fail every test (onUnusedQuery: 'error')", () => {
    expect(builder.options.prisma?.onUnusedQuery).toBe('error');
    // Decided once, before the schema was built: a later change would not reach the builder.
    expect(() => checkUnusedQueries(null)).toThrow(/before the schema is imported/);
  });
});

describe('D2, D3: every statement of these scenarios is routable to one agent', () => {
  it(`D3: EXPLAINed on the schema hash-partitioned by agent (${PARTITIONS} partitions), each touches one partition of each table`, async () => {
    const statements = recorder.recorded.filter((s) => !/^\s*(BEGIN|COMMIT|ROLLBACK)\b/i.test(s.text));
    expect(statements.length).toBeGreaterThan(30);
    const db = await createTestDatabase({ layout: 'plain' });
    try {
      const query = <T>(text: string, params?: unknown[]) => db.sql.query<T>(text, params);
      await partitionByAgent(query);
      const partitions = await partitionsOf(query);
      const problems: string[] = [];
      for (const statement of statements) {
        const [row] = await db.sql.query<{ 'QUERY PLAN': unknown }>(
          `EXPLAIN (FORMAT JSON) ${statement.text}`,
          [...(statement.values ?? [])],
        );
        const touched = partitionsTouched(row!['QUERY PLAN'], partitions);
        const spread = [...touched].filter(([, names]) => names.size !== 1);
        if (spread.length > 0) {
          problems.push(
            `${describeStatement(statement)} — ${spread.map(([table, names]) => `${table}: ${names.size}`).join(', ')}`,
          );
        }
      }
      expect(problems).toEqual([]);
    } finally {
      await db.close();
    }
  });
});

/** Per partitioned table, the partitions a plan reads or writes (its scan and modify nodes). */
function partitionsTouched(plan: unknown, partitions: Map<string, string>): Map<string, Set<string>> {
  const touched = new Map<string, Set<string>>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== 'object') return;
    const relation = (node as Record<string, unknown>)['Relation Name'];
    if (typeof relation === 'string' && partitions.has(relation)) {
      const table = partitions.get(relation)!;
      touched.set(table, (touched.get(table) ?? new Set()).add(relation));
    }
    Object.values(node).forEach(visit);
  };
  visit(plan);
  return touched;
}

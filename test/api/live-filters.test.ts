// B2 with L1/B5: memoryAdded with each new filter field (instruments, producers, run
// kinds, freshness, search text) delivers exactly the records the list shows, in commit order, over
// real WebSockets and SSE; a search is asked of the database once per record for all its texts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeCursor } from '../../src/domain/cursor.js';
import {
  createAgentFixture,
  startHarness,
  startRun,
  writeOk,
  type AgentFixture,
  type Harness,
} from '../support/harness.js';
import {
  subscribeSse,
  subscribeWs,
  wsClient,
  type LiveSubscription,
  settleOpenSubscriptions,
} from '../support/live.js';
import { StatementRecorder } from '../support/statement-recorder.js';

const recorder = new StatementRecorder();
let h: Harness;
let base: string;
let foreign: AgentFixture;

beforeAll(async () => {
  // No periodic token check may fall into a recording.
  h = await startHarness({ recorder, sessionCheckMs: 3_600_000 });
  base = `http://127.0.0.1:${(await h.server.listen(0, '127.0.0.1')).port}`;
  foreign = await createAgentFixture(h, { instruments: ['ETH'] });
});
afterAll(async () => {
  await h.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Until exactly `count` subscriptions are open (joined their feed; earlier ones ended), at most 5 s. */
async function joined(count: number): Promise<void> {
  expect(await settleOpenSubscriptions(h.fetch, count)).toBe(count);
}

/** An agent with its runs: unscheduled Analysis, Trading, Review, and a scheduled Analysis run whose records are stale at birth. */
async function agentWithRuns() {
  const fx = await createAgentFixture(h, { instruments: ['BTC', 'ETH', 'SOL'] });
  const oldClose = new Date(Math.floor(Date.now() / 300_000) * 300_000 - 3_600_000).toISOString();
  return {
    fx,
    adhoc: (await startRun(h, fx.producers.adhoc!.id)).token,
    trading: (await startRun(h, fx.producers.trading!.id)).token,
    review: (await startRun(h, fx.producers.review!.id)).token,
    // X: boundary + 2 × 5m, an hour ago: already stale when stored.
    stale: (await startRun(h, fx.producers.analysis!.id, oldClose)).token,
  };
}

/** The ids the list shows for `filter`, among `written`. */
async function listed(fx: AgentFixture, filter: Record<string, unknown>, written: string[]) {
  const data = await h.ok<{ memories: { edges: { node: { id: string } }[] } }>(
    'query($f: MemoryFilter) { memories(filter: $f, first: 200) { edges { node { id } } } }',
    { f: filter },
    fx.operatorToken,
  );
  return new Set(data.memories.edges.map((e) => e.node.id).filter((id) => written.includes(id)));
}

const idsOf = (sub: LiveSubscription) => sub.edges.map((e) => e.node.id);
const seqsOf = (sub: LiveSubscription) => sub.edges.map((e) => decodeCursor(e.cursor)!.seq!);

describe('memoryAdded with the new filter fields (B2, L1, B5)', () => {
  it('L1: each field and their combinations deliver exactly the matching records, in order, as the list shows them', async () => {
    const { fx, adhoc, trading, review, stale } = await agentWithRuns();
    const cases: Record<string, { filter: Record<string, unknown>; expected: string[] }> = {
      eth: { filter: { instruments: ['ETH'] }, expected: ['w1', 'w3'] },
      solOrBtc: { filter: { instruments: ['SOL', 'BTC'] }, expected: ['w2', 'w3', 'w5'] },
      adhoc: { filter: { producerIds: [fx.producers.adhoc!.id] }, expected: ['w1', 'w2'] },
      foreignProducer: { filter: { producerIds: [foreign.producers.adhoc!.id] }, expected: [] },
      trading: { filter: { runKinds: ['TRADING'] }, expected: ['w3'] },
      analysisOrReview: { filter: { runKinds: ['ANALYSIS', 'REVIEW'] }, expected: ['w1', 'w2', 'w4', 'w5'] },
      stale: { filter: { freshness: 'STALE' }, expected: ['w5'] },
      fresh: { filter: { freshness: 'FRESH' }, expected: ['w1', 'w2', 'w3', 'w4', 'w6'] },
      bearish: { filter: { text: 'bearish' }, expected: ['w1', 'w2', 'w4', 'w5', 'w6'] },
      bearishEth: { filter: { text: 'bearish', instruments: ['ETH'] }, expected: ['w1'] },
      phraseOr: { filter: { text: '"no trade" or lesson' }, expected: ['w3', 'w4'] },
      excludeFresh: {
        filter: { text: 'bearish -breakout', freshness: 'FRESH' },
        expected: ['w1', 'w4', 'w6'],
      },
      learnings: { filter: { text: 'bearish', types: ['agent_learnings'] }, expected: ['w4'] },
      nothingToFind: { filter: { text: '&|!()' }, expected: [] },
    };
    const client = wsClient(base, fx.operatorToken);
    const subs = Object.fromEntries(
      Object.entries(cases).map(([name, { filter }]) => [name, subscribeWs(client, { filter })]),
    );
    const sse = subscribeSse(base, fx.operatorToken, { filter: { text: 'bearish' } });
    await joined(Object.keys(cases).length + 1);

    const w: Record<string, string> = {};
    const write = async (name: string, token: string, input: Record<string, unknown>) => {
      w[name] = (await writeOk(h, token, input)).id as string;
    };
    await write('w1', adhoc, {
      type: 'funding_note',
      scope: 'INSTRUMENTS',
      instruments: ['ETH'],
      content: 'ETH funding turns negative, bearish',
    });
    await write('w2', adhoc, {
      type: 'breakout_note',
      scope: 'INSTRUMENTS',
      instruments: ['BTC'],
      content: 'BTC breakout above the range',
      metadata: { comment: 'bearish retest possible' },
    });
    await write('w3', trading, {
      type: 'trading_decision',
      scope: 'INSTRUMENTS',
      instruments: ['ETH', 'BTC'],
      content: 'No trade: entries unclear',
      metadata: { valid_for_seconds: 600 },
    });
    await write('w4', review, {
      type: 'agent_learnings',
      scope: 'AGENT',
      content: 'Lesson: bearish setups need confirmation',
    });
    await write('w5', stale, {
      type: 'ema_handoff',
      scope: 'INSTRUMENTS',
      instruments: ['SOL'],
      content: 'SOL bearish, stale at birth',
    });
    const { importMemories } = await h.ok<{ importMemories: { id: string }[] }>(
      'mutation($i: [ImportMemoryInput!]!) { importMemories(input: $i) { id } }',
      {
        i: [
          {
            agentId: fx.agentId,
            type: 'legacy_note',
            scope: 'AGENT',
            content: 'legacy bearish note',
            createdAt: new Date(Date.now() - 86_400_000).toISOString(),
          },
        ],
      },
    );
    w.w6 = importMemories[0]!.id;
    const written = Object.values(w);

    for (const [name, { expected }] of Object.entries(cases)) await subs[name]!.waitFor(expected.length);
    await sse.waitFor(cases.bearish!.expected.length);
    await sleep(300); // anything extra would have arrived by now
    for (const [name, { filter, expected }] of Object.entries(cases)) {
      const sub = subs[name]!;
      expect(sub.errors, name).toEqual([]);
      expect(idsOf(sub), name).toEqual(expected.map((key) => w[key]));
      // B5: exactly what the list shows for the same filter.
      expect(new Set(idsOf(sub)), name).toEqual(await listed(fx, filter, written));
      const seqs = seqsOf(sub);
      expect(seqs, name).toEqual([...seqs].sort((a, b) => a - b));
    }
    expect(idsOf(sse)).toEqual(idsOf(subs.bearish!));
    for (const sub of [...Object.values(subs), sse]) await sub.stop();
    await client.dispose();
  });

  it('L2: a search resumed with after replays the matching records it missed, then live ones, in seq order', async () => {
    const { fx, adhoc } = await agentWithRuns();
    const write = async (content: string, metadata: Record<string, unknown> = {}) =>
      (await writeOk(h, adhoc, { type: 'note', scope: 'AGENT', content, metadata })).id as string;
    const start = await write('before anything');
    const { memories } = await h.ok<{ memories: { edges: { cursor: string }[] } }>(
      '{ memories(first: 1) { edges { cursor } } }',
      {},
      fx.operatorToken,
    );
    const x1 = await write('alpha wave one');
    await write('beta wave');
    const client = wsClient(base, fx.operatorToken);
    const sub = subscribeWs(client, { filter: { text: 'alpha' }, after: memories.edges[0]!.cursor });
    await joined(1);
    const x3 = await write('alpha wave three');
    await write('beta again');
    const x5 = await write('gamma', { note: 'alpha in metadata' });
    await sub.waitFor(3);
    await sleep(200);
    expect(sub.errors).toEqual([]);
    expect(idsOf(sub)).toEqual([x1, x3, x5]);
    expect(idsOf(sub)).not.toContain(start);
    await sub.stop();
    await client.dispose();
  });

  it('L2: concurrent writes reach a search in seq order, none lost or twice', async () => {
    const { fx, adhoc } = await agentWithRuns();
    const client = wsClient(base, fx.operatorToken);
    const search = subscribeWs(client, { filter: { text: 'gamma' } });
    const all = subscribeWs(client, {});
    await joined(2);
    const ids = await Promise.all(
      Array.from({ length: 24 }, async (_, i) => {
        const content = i % 3 === 0 ? `delta ${i}` : `gamma ${i}`;
        return { i, id: (await writeOk(h, adhoc, { type: 'note', scope: 'AGENT', content })).id as string };
      }),
    );
    await all.waitFor(24);
    await search.waitFor(16);
    await sleep(200);
    const gamma = new Set(ids.filter(({ i }) => i % 3 !== 0).map(({ id }) => id));
    // The unfiltered stream is the commit order; the search is its gamma records, in that order.
    expect(idsOf(search)).toEqual(idsOf(all).filter((id) => gamma.has(id)));
    const seqs = seqsOf(all);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    await search.stop();
    await all.stop();
    await client.dispose();
  });

  it('B11: one search statement per record answers every text its subscribers search', async () => {
    const { fx, adhoc } = await agentWithRuns();
    const client = wsClient(base, fx.operatorToken);
    const subs = [
      subscribeWs(client, { filter: { text: 'bearish' } }),
      subscribeWs(client, { filter: { text: 'bearish' } }),
      subscribeWs(client, { filter: { text: 'lesson' } }),
      subscribeWs(client, { filter: { text: 'bearish', instruments: ['SOL'] } }), // facts decide: no question
      subscribeWs(client, {}),
    ];
    await joined(subs.length);
    const trips = await recorder.during(async () => {
      await writeOk(h, adhoc, { type: 'note', scope: 'AGENT', content: 'bearish again' });
      for (const sub of [subs[0]!, subs[1]!, subs[4]!]) await sub.waitFor(1);
    });
    const searches = trips.statements.filter((line) => line.includes('websearch_to_tsquery'));
    expect(searches).toHaveLength(1);
    expect(searches[0]).toContain('unnest($::text[])');
    await sleep(100);
    expect(subs.map((sub) => sub.edges.length)).toEqual([1, 1, 0, 0, 1]);
    for (const sub of subs) await sub.stop();
    await client.dispose();
  });

  it('B2: a bad filter field ends the subscription with BAD_USER_INPUT naming it', async () => {
    const { fx } = await agentWithRuns();
    const client = wsClient(base, fx.operatorToken);
    for (const [filter, field] of [
      [{ text: 'bear\u0000ish' }, 'text'],
      [{ instruments: [''] }, 'instruments[0]'],
    ] as const) {
      const sub = subscribeWs(client, { filter });
      await sub.closed;
      const [errors] = sub.errors as { extensions: Record<string, unknown> }[][];
      expect(errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field });
    }
    await client.dispose();
  });
});

// B2 (B2, B4): search and filters in SQL before pagination — full-text search over
// content and metadata text, instruments, producers, run kinds and freshness; memoryTypes follows
// the filter; odd search syntax is never a server error. Paging and the index: search-paging.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAgentFixture,
  startHarness,
  startRun,
  writeOk,
  type AgentFixture,
  type GqlResult,
  type Harness,
} from '../support/harness.js';

const MEMORIES = `query($filter: MemoryFilter, $first: Int, $after: String) {
  memories(filter: $filter, first: $first, after: $after) {
    edges { cursor node { id type createdAt } } pageInfo { hasNextPage endCursor } } }`;
const TYPES = `query($filter: MemoryFilter, $window: TimeWindowInput) {
  memoryTypes(filter: $filter, window: $window) { type count } }`;

interface Page {
  edges: { cursor: string; node: { id: string; type: string; createdAt: string } }[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

const T0 = Date.parse('2026-09-01T10:00:00.000Z');
const MINUTE = 60_000;

let h: Harness;
let fx: AgentFixture;
let foreign: AgentFixture;
/** The records of fx, by name (see beforeAll). */
const r: Record<'funding' | 'breakout' | 'decision' | 'lesson' | 'legacy', string> = {} as never;

beforeAll(async () => {
  h = await startHarness();
  fx = await createAgentFixture(h, { instruments: ['BTC', 'ETH', 'SOL'] });
  foreign = await createAgentFixture(h, { instruments: ['ETH'] });
  h.clock.set(new Date(T0));
  const analysis = await startRun(h, fx.producers.adhoc!.id);
  const trading = await startRun(h, fx.producers.trading!.id);
  const review = await startRun(h, fx.producers.review!.id);
  const at = (minutes: number) => h.clock.set(new Date(T0 + minutes * MINUTE));
  at(1); // unscheduled Analysis: fresh for 30 minutes (X)
  r.funding = (
    await writeOk(h, analysis.token, {
      type: 'funding_note',
      scope: 'INSTRUMENTS',
      instruments: ['ETH'],
      content: 'ETH funding turns negative; bearish divergence on the 4h',
      metadata: { note: 'watch the basis' },
    })
  ).id;
  at(2);
  r.breakout = (
    await writeOk(h, analysis.token, {
      type: 'breakout_note',
      scope: 'INSTRUMENTS',
      instruments: ['BTC'],
      content: 'BTC breakout above the range',
      metadata: { comment: 'bearish retest possible', level: 71000, nested: { why: ['volume fading'] } },
    })
  ).id;
  at(3); // valid for two minutes: stale from T0+5m
  r.decision = (
    await writeOk(h, trading.token, {
      type: 'trading_decision',
      scope: 'INSTRUMENTS',
      instruments: ['ETH', 'BTC'],
      content: 'No trade: entries unclear',
      metadata: { valid_for_seconds: 120 },
    })
  ).id;
  at(4); // learnings never expire
  r.lesson = (
    await writeOk(h, review.token, {
      type: 'agent_learnings',
      scope: 'AGENT',
      content: 'Lesson: wait for confirmation before acting',
    })
  ).id;
  const { importMemories } = await h.ok<{ importMemories: { id: string }[] }>(
    'mutation($i: [ImportMemoryInput!]!) { importMemories(input: $i) { id } }',
    {
      i: [
        {
          agentId: fx.agentId,
          type: 'legacy_note',
          scope: 'AGENT',
          content: 'legacy bearish note',
          metadata: { source: 'v1 export' },
          createdAt: new Date(T0 - 60 * MINUTE).toISOString(),
        },
      ],
    },
  );
  r.legacy = importMemories[0]!.id;
  const foreignRun = await startRun(h, foreign.producers.adhoc!.id);
  await writeOk(h, foreignRun.token, { type: 'funding_note', scope: 'AGENT', content: 'bearish elsewhere' });
  at(10);
});
afterAll(async () => {
  await h.close();
});

async function list(filter: Record<string, unknown>, first = 50, after: string | null = null): Promise<Page> {
  return (await h.ok<{ memories: Page }>(MEMORIES, { filter, first, after }, fx.operatorToken)).memories;
}
const ids = async (filter: Record<string, unknown>) => (await list(filter)).edges.map((e) => e.node.id);
const errorOf = (result: GqlResult) => result.errors?.[0];

describe('B11: full-text search (B2)', () => {
  it('B11: text matches content and the string values of metadata, newest first', async () => {
    expect(await ids({ text: 'bearish' })).toEqual([r.breakout, r.funding, r.legacy]);
    expect(await ids({ text: 'fading' })).toEqual([r.breakout]); // a string nested in metadata
    expect(await ids({ text: 'BASIS' })).toEqual([r.funding]);
  });

  it('B11: English stemming; metadata keys, numbers and other agents are not searched', async () => {
    expect(await ids({ text: 'entry' })).toEqual([r.decision]); // "entries"
    expect(await ids({ text: 'confirmed' })).toEqual([r.lesson]); // "confirmation"
    expect(await ids({ text: 'comment' })).toEqual([]);
    expect(await ids({ text: '71000' })).toEqual([]);
    expect(await ids({ text: 'elsewhere' })).toEqual([]);
  });

  it('W10: metadata holding a \u0000 or lone-surrogate escape (valid JSON, not text) is stored, read back and searched', async () => {
    // The writes that found it: json_to_tsvector under the search index failed on such metadata (a 500).
    const own = await createAgentFixture(h, { instruments: ['ETH'] });
    const run = await startRun(h, own.producers.adhoc!.id);
    const metadata = {
      '\u0000': 'nul key',
      note: 'zircon \u0000 beside a nul',
      lone: 'quartz \ud800 and \udc00 halves',
      pair: 'jade 😀 pair',
      literal: 'obsidian \\u0000 as written',
    };
    const written = await writeOk(h, run.token, {
      type: 'odd_note',
      scope: 'AGENT',
      content: 'gem notes',
      metadata,
    });
    const read = await h.ok<{ memory: { metadata: unknown } }>(
      'query($id: UUID!) { memory(id: $id) { metadata } }',
      { id: written.id },
      own.operatorToken,
    );
    // The service adds its expiry keys (X); the rest comes back as written.
    expect(read.memory.metadata).toMatchObject(metadata);
    for (const word of ['zircon', 'quartz', 'jade', 'obsidian', 'gem']) {
      const found = await h.ok<{ memories: Page }>(MEMORIES, { filter: { text: word } }, own.operatorToken);
      expect(found.memories.edges.map((edge) => edge.node.id)).toEqual([written.id]);
    }
  });

  it('B11: search box syntax — phrases, or, exclusion', async () => {
    expect(await ids({ text: '"funding turns"' })).toEqual([r.funding]);
    expect(await ids({ text: '"turns funding"' })).toEqual([]);
    expect(await ids({ text: 'bearish -breakout' })).toEqual([r.funding, r.legacy]);
    expect(await ids({ text: 'breakout or lesson' })).toEqual([r.lesson, r.breakout]);
    expect(await ids({ text: 'bearish eth' })).toEqual([r.funding]);
  });

  it('B11: odd search text answers a list (never a server error); blank means no search', async () => {
    const all = await ids({});
    expect(await ids({ text: '   ' })).toEqual(all);
    expect(await ids({ text: 'the' })).toEqual([]); // only a stop word: nothing to look for
    const odd = [
      '"',
      '""',
      "'",
      '-',
      '--bearish',
      'or',
      'OR or OR',
      '!',
      '&|!():*<->',
      '\\',
      'bearish:*',
      'x & y | !z',
      '(bearish',
      'bearish:A',
      '🙂',
      'e\u0301',
      'שלום',
      '\u200b\ufeff',
      '%_%',
      '\'; DROP TABLE "Memory"; --',
    ];
    for (const text of odd) {
      const result = await h.gql(MEMORIES, { filter: { text } }, fx.operatorToken);
      expect(result.errors, text).toBeUndefined();
      const types = await h.gql(TYPES, { filter: { text } }, fx.operatorToken);
      expect(types.errors, text).toBeUndefined();
    }
    expect(await ids({ text: '-bearish' })).toEqual([r.lesson, r.decision]); // only an exclusion
    expect(await ids({ text: '--bearish' })).toEqual([r.breakout, r.funding, r.legacy]); // excluded twice
    expect(await ids({ text: '"bearish' })).toEqual([r.breakout, r.funding, r.legacy]);
  });

  it('B11: text PostgreSQL cannot hold, or too long, is BAD_USER_INPUT naming text (W10)', async () => {
    for (const text of ['bear\u0000ish', 'bear\ud800ish', 'x'.repeat(201)]) {
      const result = await h.gql(MEMORIES, { filter: { text } }, fx.operatorToken);
      expect(errorOf(result)?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'text' });
    }
    expect(await ids({ text: `${'x'.repeat(199)} ` })).toEqual([]); // trimmed first
  });
});

describe('B11: a bounded search text', () => {
  it('B11: a search of more than 16 words is BAD_USER_INPUT naming text, on the list and the type counts', async () => {
    const words = (n: number) => Array.from({ length: n }, (_, i) => `bearish${i}`).join(' ');
    for (const query of [MEMORIES, TYPES]) {
      const result = await h.gql(query, { filter: { text: words(17) } }, fx.operatorToken);
      expect(result.data ?? null).toBeNull();
      expect(errorOf(result)?.message).toMatch(/at most 16 words/);
      expect(errorOf(result)?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'text' });
    }
    expect(await ids({ text: `bearish ${words(15)}` })).toEqual([]);
    // 16 alternatives: `or` is the operator between words, not one of them.
    const alternatives = ['bearish', 'breakout', 'lesson', 'entry', 'funding', 'basis'];
    const either = [...alternatives, ...Array.from({ length: 10 }, (_, i) => `absent${i}`)].join(' or ');
    expect(await ids({ text: either })).toEqual([r.lesson, r.decision, r.breakout, r.funding, r.legacy]);
  });
});

describe('B2: filters by instrument, producer, run kind and freshness (B2)', () => {
  it('B2: instruments match any target; agent-wide records target none', async () => {
    expect(await ids({ instruments: ['ETH'] })).toEqual([r.decision, r.funding]);
    expect(await ids({ instruments: ['SOL', 'BTC'] })).toEqual([r.decision, r.breakout]);
    expect(await ids({ instruments: ['SOL'] })).toEqual([]);
    expect(await ids({ instruments: ['eth'] })).toEqual([]); // ids are case-sensitive
  });

  it('B2: producerIds; another agent’s producer simply matches nothing (S1)', async () => {
    expect(await ids({ producerIds: [fx.producers.adhoc!.id] })).toEqual([r.breakout, r.funding]);
    expect(await ids({ producerIds: [fx.producers.adhoc!.id.toUpperCase()] })).toEqual([
      r.breakout,
      r.funding,
    ]);
    expect(await ids({ producerIds: [fx.producers.trading!.id, fx.producers.review!.id] })).toEqual([
      r.lesson,
      r.decision,
    ]);
    expect(await ids({ producerIds: [foreign.producers.adhoc!.id] })).toEqual([]);
  });

  it('B2: runKinds; imported records without provenance have none', async () => {
    expect(await ids({ runKinds: ['ANALYSIS'] })).toEqual([r.breakout, r.funding]);
    expect(await ids({ runKinds: ['REVIEW', 'TRADING'] })).toEqual([r.lesson, r.decision]);
  });

  it('B2: freshness is evaluated when the list is requested', async () => {
    expect(await ids({ freshness: 'STALE' })).toEqual([r.decision]);
    expect(await ids({ freshness: 'FRESH' })).toEqual([r.lesson, r.breakout, r.funding, r.legacy]);
    h.clock.set(new Date(T0 + 40 * MINUTE));
    try {
      expect(await ids({ freshness: 'STALE' })).toEqual([r.decision, r.breakout, r.funding]);
      expect(await ids({ freshness: 'FRESH' })).toEqual([r.lesson, r.legacy]);
    } finally {
      h.clock.set(new Date(T0 + 10 * MINUTE));
    }
  });

  it('B2: fields combine (AND) with each other, types and the window', async () => {
    expect(await ids({ text: 'bearish', instruments: ['ETH'] })).toEqual([r.funding]);
    expect(await ids({ text: 'bearish', runKinds: ['ANALYSIS'], freshness: 'FRESH' })).toEqual([
      r.breakout,
      r.funding,
    ]);
    expect(await ids({ text: 'bearish', types: ['legacy_note', 'funding_note'] })).toEqual([
      r.funding,
      r.legacy,
    ]);
    expect(
      await ids({
        text: 'bearish',
        window: { fromDate: '2026-09-01', toDate: '2026-09-01' },
        freshness: 'FRESH',
      }),
    ).toEqual([r.breakout, r.funding, r.legacy]);
    expect(await ids({ text: 'bearish', window: { rolling: 'LAST_1H' } })).toEqual([r.breakout, r.funding]);
    expect(
      await ids({ instruments: ['ETH'], producerIds: [fx.producers.trading!.id], freshness: 'FRESH' }),
    ).toEqual([]);
  });

  it('B2: each field’s bad value is BAD_USER_INPUT naming the field, and changes nothing', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ instruments: ['ETH', ''] }, 'instruments[1]'],
      [{ instruments: ['x'.repeat(65)] }, 'instruments[0]'],
      [{ instruments: Array.from({ length: 101 }, (_, i) => `I${i}`) }, 'instruments'],
      [{ instruments: ['ETH\u0000'] }, 'instruments[0]'],
      [{ producerIds: Array.from({ length: 101 }, () => fx.producers.adhoc!.id) }, 'producerIds'],
    ];
    for (const [filter, field] of cases) {
      const result = await h.gql(MEMORIES, { filter }, fx.operatorToken);
      expect(errorOf(result)?.extensions, field).toMatchObject({ code: 'BAD_USER_INPUT', field });
    }
    // Malformed UUIDs and unknown enum values fail variable coercion (BAD_USER_INPUT): the message
    // quotes the value (graphql-js' "at filter.…" prefix is not echoed, see schema/errors.ts).
    for (const [filter, quoted] of [
      [{ producerIds: ['not-a-uuid'] }, '"not-a-uuid"'],
      [{ runKinds: ['ANALYSIS', 'SCALPING'] }, '"SCALPING"'],
      [{ freshness: 'OLD' }, '"OLD"'],
    ] as const) {
      const result = await h.gql(MEMORIES, { filter }, fx.operatorToken);
      expect(result.data).toBeUndefined();
      expect(errorOf(result)?.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
      expect(errorOf(result)?.message).toContain(quoted);
    }
  });
});

describe('B1: memoryTypes follows the filter (B1)', () => {
  const types = async (variables: Record<string, unknown>) =>
    (await h.ok<{ memoryTypes: { type: string; count: number }[] }>(TYPES, variables, fx.operatorToken))
      .memoryTypes;

  it('B1: counts follow every field but types; a list’s total is the sum of its types’ counts', async () => {
    const filter = { text: 'bearish', types: ['funding_note'] };
    expect(await types({ filter })).toEqual([
      { type: 'breakout_note', count: 1 },
      { type: 'funding_note', count: 1 },
      { type: 'legacy_note', count: 1 },
    ]);
    expect(await types({ filter: { instruments: ['ETH'] } })).toEqual([
      { type: 'funding_note', count: 1 },
      { type: 'trading_decision', count: 1 },
    ]);
    expect(await types({ filter: { freshness: 'STALE' } })).toEqual([{ type: 'trading_decision', count: 1 }]);
    expect(await types({ filter: { producerIds: [foreign.producers.adhoc!.id] } })).toEqual([]);
    for (const selected of [['funding_note', 'legacy_note'], ['breakout_note']]) {
      const counted = (await types({ filter: { ...filter, types: selected } }))
        .filter((t) => selected.includes(t.type))
        .reduce((sum, t) => sum + t.count, 0);
      expect(await ids({ ...filter, types: selected })).toHaveLength(counted);
    }
  });

  it('B1: window still works alone and as filter.window; both at once is BAD_USER_INPUT naming window', async () => {
    const window = { rolling: 'LAST_1H' };
    const expected = [
      { type: 'agent_learnings', count: 1 },
      { type: 'breakout_note', count: 1 },
      { type: 'funding_note', count: 1 },
      { type: 'trading_decision', count: 1 },
    ];
    expect(await types({ window })).toEqual(expected);
    expect(await types({ filter: { window } })).toEqual(expected);
    expect(await types({ window, filter: { text: 'bearish' } })).toEqual([
      { type: 'breakout_note', count: 1 },
      { type: 'funding_note', count: 1 },
    ]);
    const both = await h.gql(TYPES, { window, filter: { window } }, fx.operatorToken);
    expect(errorOf(both)?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'window' });
  });
});

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { toGraphQLError } from '../../src/auth/errors.js';
import { encodeCursor } from '../../src/domain/cursor.js';
import { InputError } from '../../src/domain/errors.js';
import { EVERY_RECORD, matchesFilter, resolveFilter } from '../../src/domain/memory-filter.js';
import { listMemoriesInSeqRange } from '../../src/store/browse.js';
import {
  createAgentFixture,
  startHarness,
  startRun,
  writeOk,
  type AgentFixture,
  type GqlResult,
  type Harness,
} from '../support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

const HOUR = 3_600_000;

const MEMORIES = `
  query($agentId: UUID, $filter: MemoryFilter, $first: Int, $after: String) {
    memories(agentId: $agentId, filter: $filter, first: $first, after: $after) {
      edges { cursor node { id type createdAt } }
      pageInfo { hasNextPage endCursor }
      window { from to }
    }
  }`;

const MEMORY_TYPES = `
  query($agentId: UUID, $window: TimeWindowInput) {
    memoryTypes(agentId: $agentId, window: $window) { type count }
  }`;

interface Page {
  edges: { cursor: string; node: { id: string; type: string; createdAt: string } }[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
  window: { from: string; to: string } | null;
}

interface Stored {
  id: string;
  type: string;
  createdAt: string;
}

async function page(variables: Record<string, unknown>, token?: string | null): Promise<Page> {
  return (await h.ok<{ memories: Page }>(MEMORIES, variables, token)).memories;
}

async function types(variables: Record<string, unknown>, token?: string | null) {
  return (await h.ok<{ memoryTypes: { type: string; count: number }[] }>(MEMORY_TYPES, variables, token))
    .memoryTypes;
}

function errorOf(result: GqlResult) {
  return result.errors?.[0]?.extensions;
}

/** Legacy records with chosen creation times, through the admin import (I1). */
async function importAt(
  agentId: string,
  items: { type: string; createdAt: Date | string }[],
): Promise<Stored[]> {
  const { importMemories } = await h.ok<{ importMemories: Stored[] }>(
    'mutation($i: [ImportMemoryInput!]!) { importMemories(input: $i) { id type createdAt } }',
    {
      i: items.map((item) => ({
        agentId,
        type: item.type,
        scope: 'AGENT',
        content: `${item.type} record`,
        createdAt: new Date(item.createdAt).toISOString(),
      })),
    },
  );
  return importMemories;
}

/** The browser's order: createdAt DESC, then id DESC (UUID text order is the database's uuid order). */
function newestFirst(records: Stored[]): string[] {
  return [...records]
    .sort((a, b) =>
      a.createdAt !== b.createdAt
        ? a.createdAt < b.createdAt
          ? 1
          : -1
        : a.id < b.id
          ? 1
          : a.id > b.id
            ? -1
            : 0,
    )
    .map((r) => r.id);
}

const ids = (p: Page) => p.edges.map((e) => e.node.id);

/** Reads every page of one list (same filter), running `between` after each page. */
async function readAll(
  variables: Record<string, unknown>,
  token?: string,
  between: (pageIndex: number) => Promise<void> = async () => {},
): Promise<Page[]> {
  const pages: Page[] = [];
  let after: string | null = null;
  for (;;) {
    const next: Page = await page({ ...variables, after }, token);
    pages.push(next);
    if (!next.pageInfo.hasNextPage) return pages;
    expect(next.pageInfo.endCursor).toBe(next.edges.at(-1)?.cursor);
    after = next.pageInfo.endCursor;
    await between(pages.length - 1);
    if (pages.length > 20) throw new Error('runaway pagination');
  }
}

describe('memoryTypes (B1)', () => {
  it('B1: custom Analysis types are discovered from stored records with their counts, sorted by name', async () => {
    const fx = await createAgentFixture(h);
    const other = await createAgentFixture(h);
    const analysis = await startRun(h, fx.producers.adhoc!.id);
    const trading = await startRun(h, fx.producers.trading!.id);
    for (const type of ['regime_shift', 'funding_skew', 'regime_shift', 'regime_shift']) {
      await writeOk(h, analysis.token, { type, scope: 'AGENT', content: `${type} note` });
    }
    await writeOk(h, trading.token, {
      type: 'trading_decision',
      scope: 'INSTRUMENTS',
      instruments: ['ETH'],
      content: 'flat',
    });
    await importAt(fx.agentId, [{ type: 'legacy_note', createdAt: '2025-01-01T00:00:00Z' }]);
    const foreign = await startRun(h, other.producers.adhoc!.id);
    await writeOk(h, foreign.token, { type: 'not_mine', scope: 'AGENT', content: 'other agent' });

    expect(await types({}, fx.operatorToken)).toEqual([
      { type: 'funding_skew', count: 1 },
      { type: 'legacy_note', count: 1 },
      { type: 'regime_shift', count: 3 },
      { type: 'trading_decision', count: 1 },
    ]);
    expect(await types({ agentId: fx.agentId })).toEqual(await types({}, fx.operatorToken)); // admin names the agent
  });

  it('B1: with a time filter only types that have records in the window are listed', async () => {
    const fx = await createAgentFixture(h);
    h.clock.set('2026-05-01T12:00:00.000Z');
    await importAt(fx.agentId, [
      { type: 'old_idea', createdAt: '2026-04-30T10:00:00.000Z' },
      { type: 'recent_idea', createdAt: '2026-05-01T11:30:00.000Z' },
      { type: 'recent_idea', createdAt: '2026-05-01T11:59:59.999Z' },
      { type: 'hour_edge', createdAt: '2026-05-01T11:00:00.000Z' }, // from is inclusive
      { type: 'too_old', createdAt: '2026-05-01T10:59:59.999Z' },
    ]);
    expect(await types({ window: { rolling: 'LAST_1H' } }, fx.operatorToken)).toEqual([
      { type: 'hour_edge', count: 1 },
      { type: 'recent_idea', count: 2 },
    ]);
    expect(await types({ window: { fromDate: '2026-04-30', timeZone: 'UTC' } }, fx.operatorToken)).toEqual([
      { type: 'old_idea', count: 1 },
    ]);
    expect(
      await types({ window: { fromDate: '2026-01-01', toDate: '2026-01-31' } }, fx.operatorToken),
    ).toEqual([]);
    expect((await types({}, fx.operatorToken)).map((t) => t.type)).toEqual([
      'hour_edge',
      'old_idea',
      'recent_idea',
      'too_old',
    ]);
  });
});

describe('memories — type filter (B2)', () => {
  it('B2: a type filter applies before pagination', async () => {
    const fx = await createAgentFixture(h);
    const base = Date.parse('2026-02-01T00:00:00.000Z');
    // 180 records, every third a signal: 60 signals spread among 120 others.
    const stored = await importAt(
      fx.agentId,
      Array.from({ length: 180 }, (_, i) => ({
        type: i % 3 === 0 ? 'signal' : i % 3 === 1 ? 'noise' : 'chatter',
        createdAt: new Date(base + i * 1000),
      })),
    );
    const signals = newestFirst(stored.filter((r) => r.type === 'signal'));
    const filter = { types: ['signal'] };

    const first = await page({ filter, first: 50 }, fx.operatorToken);
    expect(first.edges).toHaveLength(50);
    expect(first.edges.every((e) => e.node.type === 'signal')).toBe(true);
    expect(first.pageInfo.hasNextPage).toBe(true);
    expect(ids(first)).toEqual(signals.slice(0, 50));

    const second = await page({ filter, first: 50, after: first.pageInfo.endCursor }, fx.operatorToken);
    expect(ids(second)).toEqual(signals.slice(50));
    expect(second.pageInfo.hasNextPage).toBe(false);
  });

  it('B2: several types select their union; an unknown type gives an empty page; an empty list means all', async () => {
    const fx = await createAgentFixture(h);
    const stored = await importAt(
      fx.agentId,
      ['signal', 'noise', 'chatter', 'signal', 'noise'].map((type, i) => ({
        type,
        createdAt: new Date(Date.parse('2026-02-02T00:00:00Z') + i * 1000),
      })),
    );
    const both = await page({ filter: { types: ['noise', 'signal'] } }, fx.operatorToken);
    expect(ids(both)).toEqual(newestFirst(stored.filter((r) => r.type !== 'chatter')));
    const none = await page({ filter: { types: ['never_written'] } }, fx.operatorToken);
    expect(none).toEqual({ edges: [], pageInfo: { hasNextPage: false, endCursor: null }, window: null });
    const all = await page({ filter: { types: [] } }, fx.operatorToken);
    expect(ids(all)).toEqual(newestFirst(stored));
  });

  it('B2: a type that no record can have is a validation error naming it', async () => {
    const fx = await createAgentFixture(h);
    const result = await h.gql(MEMORIES, { filter: { types: ['signal', 'Not A Type'] } }, fx.operatorToken);
    expect(errorOf(result)).toMatchObject({ code: 'BAD_USER_INPUT', field: 'types[1]' });
  });
});

describe('memories — time filters (B3)', () => {
  async function importAround(agentId: string, instants: string[]): Promise<Stored[]> {
    return importAt(
      agentId,
      instants.map((createdAt) => ({ type: 'tick', createdAt })),
    );
  }

  it('B3: America/New_York 2026-03-08 range is 23 h and returns exactly the records inside those local bounds', async () => {
    const fx = await createAgentFixture(h);
    // Local midnight is 05:00Z (EST); the next local midnight is 04:00Z (EDT): 23 hours.
    const stored = await importAround(fx.agentId, [
      '2026-03-08T04:59:59.999Z',
      '2026-03-08T05:00:00.000Z',
      '2026-03-08T12:00:00.000Z',
      '2026-03-09T03:59:59.999Z',
      '2026-03-09T04:00:00.000Z',
      '2026-03-09T04:30:00.000Z',
    ]);
    const window = { fromDate: '2026-03-08', toDate: '2026-03-08', timeZone: 'America/New_York' };
    const result = await page({ filter: { window } }, fx.operatorToken);
    expect(result.window).toEqual({ from: '2026-03-08T05:00:00.000Z', to: '2026-03-09T04:00:00.000Z' });
    expect(Date.parse(result.window!.to) - Date.parse(result.window!.from)).toBe(23 * HOUR);
    expect(ids(result)).toEqual(newestFirst(stored.slice(1, 4)));
    expect(await types({ window }, fx.operatorToken)).toEqual([{ type: 'tick', count: 3 }]);
  });

  it('B3: Europe/London 2026-10-25 is 25 h', async () => {
    const fx = await createAgentFixture(h);
    // Local midnight is 23:00Z the day before (BST); the next local midnight is 00:00Z (GMT): 25 hours.
    const stored = await importAround(fx.agentId, [
      '2026-10-24T22:59:59.999Z',
      '2026-10-24T23:00:00.000Z',
      '2026-10-25T01:30:00.000Z',
      '2026-10-25T23:59:59.999Z',
      '2026-10-26T00:00:00.000Z',
    ]);
    const result = await page(
      { filter: { window: { fromDate: '2026-10-25', timeZone: 'Europe/London' } } },
      fx.operatorToken,
    );
    expect(result.window).toEqual({ from: '2026-10-24T23:00:00.000Z', to: '2026-10-26T00:00:00.000Z' });
    expect(Date.parse(result.window!.to) - Date.parse(result.window!.from)).toBe(25 * HOUR);
    expect(ids(result)).toEqual(newestFirst(stored.slice(1, 4)));
  });

  it('B3: an inclusive range of several local dates spans from the first local midnight to the one after the last', async () => {
    const fx = await createAgentFixture(h);
    const stored = await importAround(fx.agentId, [
      '2026-03-06T04:59:59.999Z',
      '2026-03-06T05:00:00.000Z',
      '2026-03-09T03:59:59.999Z',
      '2026-03-09T04:00:00.000Z',
    ]);
    const result = await page(
      { filter: { window: { fromDate: '2026-03-06', toDate: '2026-03-08', timeZone: 'America/New_York' } } },
      fx.operatorToken,
    );
    expect(result.window).toEqual({ from: '2026-03-06T05:00:00.000Z', to: '2026-03-09T04:00:00.000Z' });
    expect(ids(result)).toEqual(newestFirst(stored.slice(1, 3)));
  });

  it('B3: rolling windows cover the last 1h / 6h / 24h before now', async () => {
    const fx = await createAgentFixture(h);
    const now = Date.parse('2026-06-10T12:00:00.000Z');
    h.clock.set(new Date(now));
    const at = (msBefore: number) => new Date(now - msBefore).toISOString();
    const stored = await importAround(fx.agentId, [
      at(1),
      at(HOUR),
      at(HOUR + 1),
      at(6 * HOUR),
      at(6 * HOUR + 1),
      at(24 * HOUR),
      at(24 * HOUR + 1),
    ]);
    const expected: Record<string, Stored[]> = {
      LAST_1H: stored.slice(0, 2),
      LAST_6H: stored.slice(0, 4),
      LAST_24H: stored.slice(0, 6),
    };
    for (const [rolling, hours] of [
      ['LAST_1H', 1],
      ['LAST_6H', 6],
      ['LAST_24H', 24],
    ] as const) {
      const result = await page({ filter: { window: { rolling } } }, fx.operatorToken);
      expect(result.window).toEqual({ from: at(hours * HOUR), to: at(0) });
      expect(ids(result)).toEqual(newestFirst(expected[rolling]!));
    }
  });

  it('B3: invalid zones, reversed ranges and ranges over 366 days are validation errors', async () => {
    const fx = await createAgentFixture(h);
    const cases: [Record<string, unknown>, string][] = [
      [{ fromDate: '2026-03-08', timeZone: 'America/Nowhere' }, 'window.timeZone'],
      [{ rolling: 'LAST_1H', timeZone: 'Mars/Olympus' }, 'window.timeZone'],
      [{ fromDate: '2026-03-09', toDate: '2026-03-08', timeZone: 'UTC' }, 'window.toDate'],
      [{ fromDate: '2025-01-01', toDate: '2026-01-02' }, 'window'], // 367 days
      [{ rolling: 'LAST_1H', fromDate: '2026-03-08' }, 'window'],
      [{ toDate: '2026-03-08' }, 'window.fromDate'],
      [{}, 'window'],
    ];
    for (const [window, field] of cases) {
      const listed = await h.gql(MEMORIES, { filter: { window } }, fx.operatorToken);
      expect(errorOf(listed), JSON.stringify(window)).toMatchObject({ code: 'BAD_USER_INPUT', field });
      expect(listed.data).toBeNull();
      const typed = await h.gql(MEMORY_TYPES, { window }, fx.operatorToken);
      expect(errorOf(typed), JSON.stringify(window)).toMatchObject({ code: 'BAD_USER_INPUT', field });
    }
    // 366 days inclusive is the longest range allowed.
    const longest = await page(
      { filter: { window: { fromDate: '2025-01-01', toDate: '2026-01-01' } } },
      fx.operatorToken,
    );
    expect(longest.window).toEqual({ from: '2025-01-01T00:00:00.000Z', to: '2026-01-02T00:00:00.000Z' });
  });
  it('B3: a date range must end by 9999-12-31 (the last instant a DateTime shows): later is a validation error, not a fault', async () => {
    const fx = await createAgentFixture(h);
    for (const window of [
      { fromDate: '9999-12-31' },
      { fromDate: '9999-12-30', toDate: '9999-12-31', timeZone: 'America/New_York' },
    ]) {
      const listed = await h.gql(MEMORIES, { filter: { window } }, fx.operatorToken);
      expect(errorOf(listed), JSON.stringify(window)).toMatchObject({ code: 'BAD_USER_INPUT' });
      const typed = await h.gql(MEMORY_TYPES, { window }, fx.operatorToken);
      expect(errorOf(typed), JSON.stringify(window)).toMatchObject({ code: 'BAD_USER_INPUT' });
    }
    // The last day that ends within year 9999 in its zone is answered.
    const last = await page(
      { filter: { window: { fromDate: '9999-12-30', timeZone: 'UTC' } } },
      fx.operatorToken,
    );
    expect(last.window).toEqual({ from: '9999-12-30T00:00:00.000Z', to: '9999-12-31T00:00:00.000Z' });
  });
});

describe('memories — pagination (B4)', () => {
  /** 120 records, three per second (ties on createdAt are broken by id). */
  async function import120(fx: AgentFixture, newest: number): Promise<Stored[]> {
    return importAt(
      fx.agentId,
      Array.from({ length: 120 }, (_, i) => ({
        type: i % 2 === 0 ? 'even' : 'odd',
        createdAt: new Date(newest - Math.floor(i / 3) * 60_000),
      })),
    );
  }

  it('B4: paging through 120 records in pages of 50 has no gaps and no duplicates', async () => {
    const fx = await createAgentFixture(h);
    const stored = await import120(fx, Date.parse('2026-03-01T12:00:00.000Z'));
    const pages = await readAll({ first: 50 }, fx.operatorToken);
    expect(pages.map((p) => p.edges.length)).toEqual([50, 50, 20]);
    expect(pages.map((p) => p.pageInfo.hasNextPage)).toEqual([true, true, false]);
    const all = pages.flatMap(ids);
    expect(new Set(all).size).toBe(120);
    expect(all).toEqual(newestFirst(stored));
    // The admin naming the agent reads the same list.
    expect((await readAll({ agentId: fx.agentId, first: 50 })).flatMap(ids)).toEqual(all);
  });

  it('B4: records written between pages do not change or duplicate the next pages', async () => {
    const fx = await createAgentFixture(h);
    h.clock.set('2026-03-02T12:00:00.000Z');
    const stored = await import120(fx, Date.parse('2026-03-02T11:00:00.000Z'));
    const run = await startRun(h, fx.producers.adhoc!.id);
    const written: string[] = [];
    const pages = await readAll(
      { agentId: fx.agentId, first: 50, filter: { types: ['even', 'odd'] } },
      undefined,
      async () => {
        // New records arrive between pages, newer than everything listed.
        h.clock.advance(1000);
        for (let i = 0; i < 3; i += 1) {
          written.push(
            (await writeOk(h, run.token, { type: 'even', scope: 'AGENT', content: `live ${i}` })).id,
          );
        }
      },
    );
    expect(written).toHaveLength(6);
    const all = pages.flatMap(ids);
    expect(pages.map((p) => p.edges.length)).toEqual([50, 50, 20]);
    expect(all).toEqual(newestFirst(stored));
    expect(all.some((id) => written.includes(id))).toBe(false);
  });

  it('B4: a rolling window keeps the first page’s bounds on later pages while the clock moves on', async () => {
    const fx = await createAgentFixture(h);
    const t0 = Date.parse('2026-04-01T12:00:00.000Z');
    h.clock.set(new Date(t0));
    // 120 records inside the last hour (newest 10 min ago), plus two just outside it.
    const inside = await importAt(
      fx.agentId,
      Array.from({ length: 120 }, (_, i) => ({
        type: 'tick',
        createdAt: new Date(t0 - 10 * 60_000 - i * 25_000),
      })),
    );
    await importAt(fx.agentId, [
      { type: 'tick', createdAt: new Date(t0 - HOUR - 1) },
      { type: 'tick', createdAt: new Date(t0 - 2 * HOUR) },
    ]);
    const run = await startRun(h, fx.producers.adhoc!.id);
    const firstWindow = { from: new Date(t0 - HOUR).toISOString(), to: new Date(t0).toISOString() };

    const pages = await readAll(
      { agentId: fx.agentId, first: 50, filter: { window: { rolling: 'LAST_1H' } } },
      undefined,
      async () => {
        // 30 minutes later a re-resolved window would start at t0 - 30 min and drop most older records.
        h.clock.advance(30 * 60_000);
        await writeOk(h, run.token, { type: 'tick', scope: 'AGENT', content: 'arrived between pages' });
      },
    );
    expect(pages.map((p) => p.window)).toEqual([firstWindow, firstWindow, firstWindow]);
    expect(pages.map((p) => p.edges.length)).toEqual([50, 50, 20]);
    expect(pages.flatMap(ids)).toEqual(newestFirst(inside));

    // A new list (no cursor) resolves the window afresh.
    const fresh = await page({ agentId: fx.agentId, filter: { window: { rolling: 'LAST_1H' } } });
    expect(fresh.window).toEqual({
      from: new Date(h.clock.now().getTime() - HOUR).toISOString(),
      to: h.clock.now().toISOString(),
    });
  });

  it('B4: a position-only cursor (as live edges carry) is accepted as after', async () => {
    const fx = await createAgentFixture(h);
    const stored = await import120(fx, Date.parse('2026-03-03T12:00:00.000Z'));
    const order = newestFirst(stored);
    const byId = new Map(stored.map((r) => [r.id, r]));
    const fiftieth = byId.get(order[49]!)!;
    const after = encodeCursor({ createdAt: new Date(fiftieth.createdAt), id: fiftieth.id });
    const next = await page({ agentId: fx.agentId, first: 50, after });
    expect(ids(next)).toEqual(order.slice(50, 100));
    // Its edges carry page cursors that continue the same list.
    const last = await page({ agentId: fx.agentId, first: 50, after: next.pageInfo.endCursor });
    expect(ids(last)).toEqual(order.slice(100));
  });

  it('B4: a page cursor only continues the list it came from', async () => {
    const fx = await createAgentFixture(h);
    const other = await createAgentFixture(h);
    h.clock.set('2026-03-04T13:00:00.000Z');
    await import120(fx, Date.parse('2026-03-04T12:00:00.000Z'));
    const filter = { types: ['even'], window: { fromDate: '2026-03-04', timeZone: 'Europe/Paris' } };
    const first = await page({ agentId: fx.agentId, filter, first: 10 });
    const after = first.pageInfo.endCursor;
    expect(first.edges).toHaveLength(10);

    // Same filter with the types in another order: same list.
    const same = await h.gql(MEMORIES, {
      agentId: fx.agentId,
      filter: { ...filter, types: ['even', 'even'] },
      after,
    });
    expect(same.errors).toBeUndefined();
    for (const variables of [
      { agentId: fx.agentId, after },
      { agentId: fx.agentId, filter: { types: ['odd'], window: filter.window }, after },
      {
        agentId: fx.agentId,
        filter: { types: ['even'], window: { ...filter.window, timeZone: 'UTC' } },
        after,
      },
      { agentId: fx.agentId, filter: { types: ['even'], window: { rolling: 'LAST_24H' } }, after },
      { agentId: other.agentId, filter, after },
    ]) {
      const result = await h.gql(MEMORIES, variables);
      expect(errorOf(result), JSON.stringify(variables)).toMatchObject({
        code: 'BAD_USER_INPUT',
        field: 'after',
      });
    }
  });

  it('B4: a malformed or tampered after and a first outside 1..200 are BAD_USER_INPUT', async () => {
    const fx = await createAgentFixture(h);
    h.clock.set('2026-03-05T13:00:00.000Z');
    await import120(fx, Date.parse('2026-03-05T12:00:00.000Z'));
    const filter = { window: { rolling: 'LAST_6H' } };
    const first = await page({ agentId: fx.agentId, filter, first: 5 });
    const cursor = first.pageInfo.endCursor!;
    const [position, context] = cursor.split('.') as [string, string];
    const [from, to, digest] = Buffer.from(context, 'base64url').toString('utf8').split('|') as [
      string,
      string,
      string,
    ];
    const forge = (text: string) => `${position}.${Buffer.from(text, 'utf8').toString('base64url')}`;
    const wider = new Date(Date.parse(from) - 30 * 24 * HOUR).toISOString();
    for (const after of [
      'garbage',
      '',
      `${cursor}.x`,
      `${position}.`,
      forge(`${wider}|${to}|${digest}`), // a window the filter never resolves to
      forge(`${to}|${from}|${digest}`),
      forge(`||${digest}`),
      forge(`${from}|${to}|nothex`),
      Buffer.from('2026-03-05T12:00:00.000Z|not-a-uuid', 'utf8').toString('base64url'),
    ]) {
      const result = await h.gql(MEMORIES, { agentId: fx.agentId, filter, after });
      expect(errorOf(result), after).toMatchObject({ code: 'BAD_USER_INPUT', field: 'after' });
    }
    for (const bad of [0, -1, 201]) {
      const result = await h.gql(MEMORIES, { agentId: fx.agentId, first: bad });
      expect(errorOf(result), String(bad)).toMatchObject({ code: 'BAD_USER_INPUT', field: 'first' });
    }
    expect((await page({ agentId: fx.agentId, first: 200 })).edges).toHaveLength(120);
    expect((await page({ agentId: fx.agentId, first: 1 })).edges).toHaveLength(1);
    expect((await page({ agentId: fx.agentId })).edges).toHaveLength(50); // default
  });
});

describe('memories — records (B6)', () => {
  it('B6: each record comes with its instruments, links and provenance in the page statement', async () => {
    const fx = await createAgentFixture(h);
    const run = await startRun(h, fx.producers.adhoc!.id);
    h.clock.set('2026-07-01T10:00:00.000Z');
    const original = await writeOk(h, run.token, {
      type: 'ema_handoff',
      scope: 'INSTRUMENTS',
      instruments: ['ETH', 'BTC'],
      content: 'ETH and BTC 5m bearish',
    });
    h.clock.advance(1000);
    const correction = await writeOk(h, run.token, {
      type: 'ema_handoff_fix',
      scope: 'AGENT',
      content: 'correction',
      links: [{ targetMemoryId: original.id, linkType: 'corrects' }],
    });
    // The page and its relations are one direct statement (counted in round-trips.test.ts B2): no
    // Prisma read of a record may follow, not even Pothos' fallback for a field's data.
    const memory = h.db.prisma.memory;
    const findMany = vi.spyOn(memory, 'findMany');
    const findFirst = vi.spyOn(memory, 'findFirst');
    const findUnique = vi.spyOn(memory, 'findUnique');
    const findUniqueOrThrow = vi.spyOn(memory, 'findUniqueOrThrow');
    try {
      const { memories } = await h.ok<{ memories: { edges: { node: Record<string, unknown> }[] } }>(
        `{ memories(first: 10) { edges { node {
            id type scope instruments content freshness
            links { linkType targetMemoryId }
            provenance { runId producerName kind }
        } } } }`,
        {},
        fx.operatorToken,
      );
      expect(memories.edges.map((e) => e.node)).toEqual([
        {
          id: correction.id,
          type: 'ema_handoff_fix',
          scope: 'AGENT',
          instruments: [],
          content: 'correction',
          freshness: 'FRESH',
          links: [{ linkType: 'corrects', targetMemoryId: original.id }],
          provenance: { runId: run.runId, producerName: 'adhoc', kind: 'ANALYSIS' },
        },
        {
          id: original.id,
          type: 'ema_handoff',
          scope: 'INSTRUMENTS',
          instruments: ['ETH', 'BTC'],
          content: 'ETH and BTC 5m bearish',
          freshness: 'FRESH',
          links: [],
          provenance: { runId: run.runId, producerName: 'adhoc', kind: 'ANALYSIS' },
        },
      ]);
      expect(findMany).not.toHaveBeenCalled();
      expect(findFirst).not.toHaveBeenCalled();
      expect(findUnique).not.toHaveBeenCalled();
      expect(findUniqueOrThrow).not.toHaveBeenCalled();
    } finally {
      vi.restoreAllMocks();
    }
  });
});

describe('the filter shared with live updates (B5, L2)', () => {
  const now = new Date('2026-08-01T12:00:00.000Z');
  const facts = { instruments: [], producerId: null, runKind: null, expiresAt: null };
  const at = (iso: string) => ({ type: 'tick', createdAt: new Date(iso), ...facts });
  const clock = () => now;

  it('B5: resolveFilter resolves like the list and names the bad field', () => {
    expect(resolveFilter(null, now)).toEqual(EVERY_RECORD);
    expect(resolveFilter({ types: [] }, now)).toEqual(EVERY_RECORD);
    expect(resolveFilter({ types: ['b', 'a', 'b'], window: { rolling: 'LAST_6H' } }, now)).toEqual({
      ...EVERY_RECORD,
      types: ['a', 'b'],
      window: { from: new Date('2026-08-01T06:00:00.000Z'), to: now, rolling: true },
    });
    for (const [filter, field] of [
      [{ window: { fromDate: '2026-08-01', timeZone: 'Nowhere/Else' } }, 'window.timeZone'],
      [{ window: { fromDate: '2026-08-02', toDate: '2026-08-01' } }, 'window.toDate'],
      [{ types: ['UPPER'] }, 'types[0]'],
    ] as const) {
      let thrown: unknown;
      try {
        resolveFilter(filter, now);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(InputError);
      expect(toGraphQLError(thrown as InputError).extensions).toMatchObject({
        code: 'BAD_USER_INPUT',
        field,
      });
    }
  });

  it('B5: matchesFilter keeps a date range closed above and a rolling window open above', () => {
    const rolling = resolveFilter({ types: ['tick'], window: { rolling: 'LAST_1H' } }, now);
    expect(matchesFilter(at('2026-08-01T11:00:00.000Z'), rolling, clock)).toBe(true);
    expect(matchesFilter(at('2026-08-01T10:59:59.999Z'), rolling, clock)).toBe(false);
    expect(matchesFilter(at('2026-08-01T12:30:00.000Z'), rolling, clock)).toBe(true); // arrived after the list loaded
    expect(matchesFilter({ ...at('2026-08-01T12:30:00.000Z'), type: 'other' }, rolling, clock)).toBe(false);

    const day = resolveFilter({ window: { fromDate: '2026-08-01', timeZone: 'America/New_York' } }, now);
    expect(matchesFilter(at('2026-08-01T04:00:00.000Z'), day, clock)).toBe(true);
    expect(matchesFilter(at('2026-08-02T03:59:59.999Z'), day, clock)).toBe(true);
    expect(matchesFilter(at('2026-08-02T04:00:00.000Z'), day, clock)).toBe(false);
    expect(matchesFilter(at('2026-08-01T03:59:59.999Z'), day, clock)).toBe(false);
    expect(
      matchesFilter({ ...at('1970-01-01T00:00:00.000Z'), type: 'anything' }, resolveFilter({}, now), clock),
    ).toBe(true);
  });

  it('L2: listMemoriesInSeqRange replays the matching records of a seq range, in seq (commit) order', async () => {
    const fx = await createAgentFixture(h);
    const other = await createAgentFixture(h);
    const stored = await importAt(fx.agentId, [
      { type: 'tick', createdAt: '2026-08-01T10:00:00.000Z' },
      { type: 'tick', createdAt: '2026-08-01T11:00:00.000Z' },
      { type: 'tick', createdAt: '2026-08-01T11:00:00.000Z' },
      { type: 'tock', createdAt: '2026-08-01T11:30:00.000Z' },
      { type: 'tick', createdAt: '2026-08-01T12:30:00.000Z' }, // after the rolling window was resolved
      { type: 'tick', createdAt: '2026-08-01T13:00:00.000Z' },
    ]);
    await importAt(other.agentId, [{ type: 'tick', createdAt: '2026-08-01T12:45:00.000Z' }]);
    // One import numbers its records in the order it stores them: 1, 2, 3 … per agent.
    const rows = await h.db.prisma.memory.findMany({
      where: { agentId: fx.agentId },
      select: { id: true, seq: true },
      orderBy: { seq: 'asc' },
    });
    expect(rows.map((r) => r.id)).toEqual(stored.map((r) => r.id));
    expect(rows.map((r) => Number(r.seq))).toEqual([1, 2, 3, 4, 5, 6]);
    const all = { afterSeq: 2, upToSeq: 6 };
    const ticks = resolveFilter({ types: ['tick'], window: { rolling: 'LAST_6H' } }, now);
    const replay = await listMemoriesInSeqRange(h.db, fx.agentId, ticks, all, 10);
    expect(replay.map((r) => r.id)).toEqual([stored[2]!.id, stored[4]!.id, stored[5]!.id]);
    expect(replay[0]).toEqual({
      id: stored[2]!.id,
      type: 'tick',
      createdAt: new Date('2026-08-01T11:00:00.000Z'),
      seq: 3,
      // The facts live delivery filters by (an import without provenance or targets: none).
      instruments: [],
      producerId: null,
      runKind: null,
      expiresAt: null,
    });
    expect((await listMemoriesInSeqRange(h.db, fx.agentId, ticks, all, 2)).map((r) => r.id)).toEqual(
      replay.slice(0, 2).map((r) => r.id),
    );
    const upTo5 = await listMemoriesInSeqRange(h.db, fx.agentId, ticks, { afterSeq: 2, upToSeq: 5 }, 10);
    expect(upTo5.map((r) => r.seq)).toEqual([3, 5]);
    const tokyoDay = resolveFilter({ window: { fromDate: '2026-08-01', timeZone: 'Asia/Tokyo' } }, now);
    // Tokyo's 2026-08-01 ends at 15:00Z the same day: every record of the range counts.
    expect((await listMemoriesInSeqRange(h.db, fx.agentId, tokyoDay, all, 10)).map((r) => r.id)).toEqual(
      stored.slice(2).map((r) => r.id),
    );
    const utcDay = resolveFilter({ window: { fromDate: '2026-07-31', timeZone: 'UTC' } }, now);
    expect(await listMemoriesInSeqRange(h.db, fx.agentId, utcDay, all, 10)).toEqual([]);
    await expect(listMemoriesInSeqRange(h.db, fx.agentId, ticks, all, -1)).rejects.toThrow(RangeError);
  });
});

describe('memories and memoryTypes — access', () => {
  it('access: an operator passing another agent’s agentId is FORBIDDEN', async () => {
    const fx = await createAgentFixture(h);
    const other = await createAgentFixture(h);
    for (const [query, variables] of [
      [MEMORIES, { agentId: other.agentId }],
      [MEMORY_TYPES, { agentId: other.agentId }],
    ] as const) {
      expect(errorOf(await h.gql(query, variables, fx.operatorToken))?.code).toBe('FORBIDDEN');
    }
    // Its own agentId is fine.
    expect((await h.gql(MEMORIES, { agentId: fx.agentId }, fx.operatorToken)).errors).toBeUndefined();
  });

  it('access: a Trading run is FORBIDDEN to browse; a Review run may', async () => {
    const fx = await createAgentFixture(h);
    const analysis = await startRun(h, fx.producers.adhoc!.id);
    const written = await writeOk(h, analysis.token, { type: 'custom_view', scope: 'AGENT', content: 'x' });
    const trading = await startRun(h, fx.producers.trading!.id);
    for (const query of [MEMORIES, MEMORY_TYPES]) {
      expect(errorOf(await h.gql(query, {}, trading.token))?.code).toBe('FORBIDDEN');
    }
    const review = await startRun(h, fx.producers.review!.id);
    expect(ids(await page({}, review.token))).toEqual([written.id]);
    expect(await types({}, review.token)).toEqual([{ type: 'custom_view', count: 1 }]);
  });

  it('access: no token is UNAUTHENTICATED; the admin must name the agent', async () => {
    for (const query of [MEMORIES, MEMORY_TYPES]) {
      expect(errorOf(await h.gql(query, {}, null))?.code).toBe('UNAUTHENTICATED');
      expect(errorOf(await h.gql(query, {}, 'op_unknown'))?.code).toBe('UNAUTHENTICATED');
      expect(errorOf(await h.gql(query, {}))).toMatchObject({ code: 'BAD_USER_INPUT', field: 'agentId' });
    }
  });
});

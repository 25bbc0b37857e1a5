// The operator page's list steps as pure functions (B4, B5, L2) and its reconnect plan, without a browser.
import { describe, expect, it } from 'vitest';
import { AuthError } from '../../src/web/graphql.js';
import {
  EMPTY_LIST,
  acceptsLiveEdge,
  firstPageList,
  withCatchUpPage,
  withLiveEdge,
  withOlderPage,
  type ListState,
} from '../../src/web/list-state.js';
import { afterFailure } from '../../src/web/live.js';
import type { MemoryConnection, MemoryEdge, MemoryFilter } from '../../src/web/queries.js';

const MINUTE = 60_000;
const T0 = Date.parse('2026-03-08T12:00:00.000Z');

/** A record `minutesAgo` before T0; the cursor names it so tests can see which one a list continues from. */
function edge(id: string, minutesAgo: number, type = 'ema_handoff'): MemoryEdge {
  return {
    cursor: `cursor-${id}`,
    node: {
      id,
      type,
      scope: 'AGENT',
      instruments: [],
      content: id,
      metadata: {},
      timeframe: null,
      createdAt: new Date(T0 - minutesAgo * MINUTE).toISOString(),
      expiresAt: null,
      expiryPolicy: null,
      freshness: 'FRESH',
      provenance: null,
      links: [],
    },
  };
}

function page(edges: MemoryEdge[], hasNextPage: boolean): MemoryConnection {
  return { edges, pageInfo: { hasNextPage, endCursor: edges.at(-1)?.cursor ?? null }, window: null };
}

const ids = (state: ListState) => state.edges.map((e) => e.node.id);
const EMA: MemoryFilter = { types: ['ema_handoff'] };

describe('the shown list (B4, B5, L2)', () => {
  it('B4: "Load older" goes below the first page, keeps its filter and continues from the older cursor', () => {
    const first = firstPageList('k', EMA, page([edge('a', 1), edge('b', 2)], true));
    const loading = { ...first, loadingOlder: true };
    const next = withOlderPage(loading, page([edge('c', 3), edge('d', 4)], false));
    expect(ids(next)).toEqual(['a', 'b', 'c', 'd']);
    expect(next.filter).toBe(EMA);
    expect(next).toMatchObject({ endCursor: 'cursor-d', hasNextPage: false, loadingOlder: false });
  });

  it('B4: an older page overlapping the shown records (a record arrived meanwhile) adds each record once', () => {
    const first = firstPageList('k', EMA, page([edge('a', 1), edge('b', 2)], true));
    const next = withOlderPage(first, page([edge('b', 2), edge('c', 3)], true));
    expect(ids(next)).toEqual(['a', 'b', 'c']);
  });

  it('B4: an empty older page keeps the cursor the list had', () => {
    const first = firstPageList('k', {}, page([edge('a', 1)], true));
    expect(withOlderPage(first, page([], false)).endCursor).toBe('cursor-a');
  });

  it('B5: a live record goes to the top; one already shown or of another type is not taken', () => {
    const shown = firstPageList('k', EMA, page([edge('a', 2), edge('b', 3)], false));
    const fresh = edge('n', 0);
    expect(acceptsLiveEdge(shown, 'k', EMA, fresh)).toBe(true);
    expect(ids(withLiveEdge(shown, 'k', fresh))).toEqual(['n', 'a', 'b']);
    expect(acceptsLiveEdge(shown, 'k', EMA, edge('a', 2))).toBe(false);
    expect(acceptsLiveEdge(shown, 'k', EMA, edge('x', 0, 'news'))).toBe(false);
  });

  it('B4/L2: a live record older than the last shown one, while older pages remain, is left to "Load older"', () => {
    const shown = firstPageList('k', EMA, page([edge('a', 2), edge('b', 3)], true));
    expect(withLiveEdge(shown, 'k', edge('old', 9))).toBe(shown);
    expect(ids(withLiveEdge(shown, 'k', edge('mid', 2.5)))).toEqual(['a', 'mid', 'b']);
    const complete = firstPageList('k', EMA, page([edge('a', 2), edge('b', 3)], false));
    expect(ids(withLiveEdge(complete, 'k', edge('old', 9)))).toEqual(['a', 'b', 'old']);
  });

  it('B5: a late live record of a previous filter leaves the new list as it is', () => {
    const shown = firstPageList('new', EMA, page([edge('a', 2)], false));
    expect(acceptsLiveEdge(shown, 'old', EMA, edge('n', 0))).toBe(false);
    expect(withLiveEdge(shown, 'old', edge('n', 0))).toBe(shown);
  });

  it('L2: after an empty first page the catch-up page fills the list and its cursor continues "Load older"', () => {
    const empty = firstPageList('k', {}, page([], false));
    const next = withCatchUpPage(empty, 'k', page([edge('a', 1), edge('b', 2)], true));
    expect(ids(next)).toEqual(['a', 'b']);
    expect(next).toMatchObject({ endCursor: 'cursor-b', hasNextPage: true });
  });

  it('L2: a catch-up page that repeats a record already shown live shows it once, newest first', () => {
    const empty = firstPageList('k', {}, page([], false));
    const live = withLiveEdge(empty, 'k', edge('n', 0));
    const next = withCatchUpPage(live, 'k', page([edge('a', 1), edge('n', 0)], false));
    expect(ids(next)).toEqual(['n', 'a']);
  });

  it('L2: a catch-up page of a previous filter is dropped', () => {
    expect(withCatchUpPage(EMPTY_LIST, 'old', page([edge('a', 1)], false))).toBe(EMPTY_LIST);
  });
});

describe('reconnecting the live subscription (B5)', () => {
  it('B5: a dropped socket retries after 1, 2, 4 … 30 s; a server error after a minute; an auth error signs out', () => {
    const waits: number[] = [];
    let failures = 0;
    for (let i = 0; i < 7; i += 1) {
      const next = afterFailure(new Error('socket closed'), failures);
      if (!('retry' in next)) throw new Error('expected a retry');
      waits.push(next.retry.inSeconds);
      failures = next.failures;
    }
    expect(waits).toEqual([1, 2, 4, 8, 16, 30, 30]);

    const server = afterFailure([{ message: 'boom', extensions: { code: 'INTERNAL' } }], 3);
    expect(server).toEqual({
      retry: { state: 'unavailable', message: 'boom', inSeconds: 60 },
      failures: 3,
    });

    const auth = afterFailure([{ message: 'no', extensions: { code: 'UNAUTHENTICATED' } }], 0);
    expect('signOut' in auth && auth.signOut).toBeInstanceOf(AuthError);
  });
});

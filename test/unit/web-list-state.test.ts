// The operator page's list steps as pure functions (B4, B5, L2), when live records wait under the "N new"
// bar, and its reconnect plan (B5, S6), without a browser.
import { describe, expect, it } from 'vitest';
import { AuthError } from '../../src/web/graphql.js';
import {
  EMPTY_LIST,
  acceptsLiveEdge,
  firstPageList,
  newestCursor,
  withCatchUpPage,
  withHeldEdge,
  withLiveEdge,
  withOlderPage,
  withPendingShown,
  type ListState,
} from '../../src/web/list-state.js';
import { FLOOD_RECORDS, RATE_WINDOW_MS, arrivalsWithin, holdsLiveEdge } from '../../src/web/live-hold.js';
import { afterFailure, secondsLeft } from '../../src/web/live.js';
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
const heldIds = (state: ListState) => state.pending.map((e) => e.node.id);
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
    expect(acceptsLiveEdge(shown, 'k', EMA, edge('old', 9))).toBe(false);
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

describe('live records held under the "N new records" bar (B5)', () => {
  it('B5: held records are not shown until "show"; then they go to the top newest first, each once', () => {
    const shown = firstPageList('k', EMA, page([edge('a', 5), edge('b', 6)], false));
    let state = shown;
    // Arrival order is not createdAt order (L2: commit order); the bar keeps them newest first.
    for (const e of [edge('n2', 2), edge('n1', 3), edge('n3', 1), edge('n2', 2)]) {
      expect(acceptsLiveEdge(state, 'k', EMA, e)).toBe(!heldIds(state).includes(e.node.id));
      state = withHeldEdge(state, 'k', e);
    }
    expect(ids(state)).toEqual(['a', 'b']);
    expect(heldIds(state)).toEqual(['n3', 'n2', 'n1']);
    const next = withPendingShown(state);
    expect(ids(next)).toEqual(['n3', 'n2', 'n1', 'a', 'b']);
    expect(next.pending).toEqual([]);
    expect(withPendingShown(next)).toBe(next);
  });

  it('B5: a held record already shown, of an old filter, or below older pages is not held', () => {
    const shown = firstPageList('k', EMA, page([edge('a', 2), edge('b', 3)], true));
    expect(withHeldEdge(shown, 'k', edge('a', 2))).toBe(shown);
    expect(withHeldEdge(shown, 'old', edge('n', 0))).toBe(shown);
    expect(withHeldEdge(shown, 'k', edge('old', 9))).toBe(shown);
  });

  it('L2: a new subscription resumes after the newest record received, shown or held', () => {
    const shown = firstPageList('k', EMA, page([edge('a', 2)], false));
    expect(newestCursor(EMPTY_LIST)).toBeNull();
    expect(newestCursor(shown)).toBe('cursor-a');
    expect(newestCursor(withHeldEdge(shown, 'k', edge('n', 1)))).toBe('cursor-n');
    const onlyHeld = withHeldEdge(firstPageList('k', EMA, page([], false)), 'k', edge('n', 1));
    expect(newestCursor(onlyHeld)).toBe('cursor-n');
  });

  it('L2: a catch-up page that brings a held record shows it, and the bar no longer counts it', () => {
    const empty = firstPageList('k', {}, page([], false));
    const held = withHeldEdge(withHeldEdge(empty, 'k', edge('n', 0)), 'k', edge('m', 0.5));
    const next = withCatchUpPage(held, 'k', page([edge('n', 0), edge('a', 1)], false));
    expect(ids(next)).toEqual(['n', 'a']);
    expect(heldIds(next)).toEqual(['m']);
  });

  it('B5: records wait while others wait, while the operator reads further down, or past a few a second', () => {
    const calm = { holding: false, scrolledIntoList: false, recentArrivals: 1 };
    expect(holdsLiveEdge(calm)).toBe(false);
    expect(holdsLiveEdge({ ...calm, holding: true })).toBe(true);
    expect(holdsLiveEdge({ ...calm, scrolledIntoList: true })).toBe(true);
    expect(holdsLiveEdge({ ...calm, recentArrivals: FLOOD_RECORDS })).toBe(false);
    expect(holdsLiveEdge({ ...calm, recentArrivals: FLOOD_RECORDS + 1 })).toBe(true);

    let times: number[] = [];
    for (const at of [0, 100, 200, 300]) times = arrivalsWithin(times, at);
    expect(times).toEqual([0, 100, 200, 300]);
    // A second later only the arrivals inside the window count.
    expect(arrivalsWithin(times, 100 + RATE_WINDOW_MS)).toEqual([200, 300, 100 + RATE_WINDOW_MS]);
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

  it('S6: a socket closed for a revoked token (4403) or an unknown one (4401) signs out instead of retrying', () => {
    const revoked = afterFailure({ code: 4403, reason: 'Forbidden: token revoked or run finished' }, 2);
    expect('signOut' in revoked && revoked.signOut.code).toBe('ENDED');
    const unknown = afterFailure({ code: 4401, reason: 'Unauthorized' }, 0);
    expect('signOut' in unknown && unknown.signOut.code).toBe('UNAUTHENTICATED');
    // Any other close (going away, slow consumer, too many connections) backs off and resumes.
    for (const code of [1001, 1006, 4008, 4029]) {
      expect(afterFailure({ code, reason: '' }, 1)).toEqual({
        retry: { state: 'reconnecting', inSeconds: 2 },
        failures: 2,
      });
    }
  });

  it('B5: the countdown counts whole seconds down to the retry', () => {
    const retryAt = 10_000;
    expect(
      [2_000, 2_001, 2_999, 9_000, 9_999, 10_000, 12_000].map((now) => secondsLeft(retryAt, now)),
    ).toEqual([8, 8, 8, 1, 1, 0, 0]);
  });
});

// The shown list as plain data and the pure steps that change it: first page, older page (B4), live and
// catch-up merges (B5) — kept out of the hooks so each step is a unit test.
import type { MemoryConnection, MemoryEdge, MemoryFilter, ResolvedWindow } from './queries.js';
import { compareEdges, matchesFilter, mergeEdges } from './records.js';

export interface ListState {
  status: 'loading' | 'ready' | 'error';
  /** filterKey of the filter these records belong to. */
  key: string;
  /** The exact filter of the first page; "Load older" sends it again (B4). */
  filter: MemoryFilter;
  edges: MemoryEdge[];
  endCursor: string | null;
  hasNextPage: boolean;
  window: ResolvedWindow | null;
  error: string | null;
  loadingOlder: boolean;
  olderError: string | null;
}

export const EMPTY_LIST: ListState = {
  status: 'loading',
  key: '',
  filter: {},
  edges: [],
  endCursor: null,
  hasNextPage: false,
  window: null,
  error: null,
  loadingOlder: false,
  olderError: null,
};

/** B1, B2: the first page of a filter replaces whatever was shown. */
export function firstPageList(key: string, filter: MemoryFilter, page: MemoryConnection): ListState {
  return {
    ...EMPTY_LIST,
    status: 'ready',
    key,
    filter,
    edges: page.edges,
    endCursor: page.pageInfo.endCursor,
    hasNextPage: page.pageInfo.hasNextPage,
    window: page.window,
  };
}

/** B4: an older page goes below the shown records; its cursor is where the next one starts. */
export function withOlderPage(state: ListState, page: MemoryConnection): ListState {
  return {
    ...state,
    edges: mergeEdges(state.edges, page.edges),
    endCursor: page.pageInfo.endCursor ?? state.endCursor,
    hasNextPage: page.pageInfo.hasNextPage,
    loadingOlder: false,
  };
}

/** B5: a live record is taken only for the list it was subscribed for, if it matches and is not shown yet. */
export function acceptsLiveEdge(
  current: ListState,
  listKey: string,
  filter: MemoryFilter,
  edge: MemoryEdge,
): boolean {
  if (current.key !== listKey || !matchesFilter(edge.node, filter, current.window)) return false;
  return !current.edges.some((shown) => shown.node.id === edge.node.id);
}

/** B5: a live record joins the list of its own filter only (a late event of an old filter is dropped). */
export function withLiveEdge(state: ListState, listKey: string, edge: MemoryEdge): ListState {
  if (state.key !== listKey) return state;
  // B4: the list is a newest-first prefix. A record older than its last one while older pages remain
  // (resume is in commit order, L2: it can deliver a record committed late) is "Load older"'s.
  const oldest = state.edges.at(-1);
  if (state.hasNextPage && oldest && compareEdges(edge, oldest) > 0) return state;
  return { ...state, edges: mergeEdges(state.edges, [edge]) };
}

/**
 * L2: the first page fetched again once the subscription is up (nothing was shown to resume from). Its
 * records merge in; its cursor becomes the list's only if the list was still empty, so "Load older"
 * keeps continuing below what is shown (B4).
 */
export function withCatchUpPage(state: ListState, listKey: string, page: MemoryConnection): ListState {
  if (state.key !== listKey) return state;
  const wasEmpty = state.edges.length === 0 && state.endCursor === null;
  return {
    ...state,
    edges: mergeEdges(state.edges, page.edges),
    endCursor: wasEmpty ? page.pageInfo.endCursor : state.endCursor,
    hasNextPage: wasEmpty ? page.pageInfo.hasNextPage : state.hasNextPage,
  };
}

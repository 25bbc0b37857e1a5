// The shown list as plain data and the pure steps that change it: first page, older page (B4), live and
// catch-up merges (B5), live records held under the "N new" bar — kept out of the hooks so each step is a
// unit test.
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
  /** B5: live records held back (the operator reads further down, or they arrive in a flood), newest first. */
  pending: MemoryEdge[];
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
  pending: [],
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

/**
 * B4: the list is a newest-first prefix. A record older than its last one while older pages remain (resume
 * is in commit order, L2: it can deliver a record committed late) is "Load older"'s.
 */
function belongsToOlderPages(state: ListState, edge: MemoryEdge): boolean {
  const oldest = state.edges.at(-1);
  return state.hasNextPage && oldest !== undefined && compareEdges(edge, oldest) > 0;
}

/**
 * B5: a live record is taken only for the list it was subscribed for, if it matches, is new to it and
 * belongs above its last record (a replayed older one is "Load older"'s: it neither shows nor counts).
 */
export function acceptsLiveEdge(
  current: ListState,
  listKey: string,
  filter: MemoryFilter,
  edge: MemoryEdge,
): boolean {
  if (current.key !== listKey || !matchesFilter(edge.node, filter, current.window)) return false;
  if (belongsToOlderPages(current, edge)) return false;
  const id = edge.node.id;
  return (
    !current.edges.some((shown) => shown.node.id === id) &&
    !current.pending.some((held) => held.node.id === id)
  );
}

/** B5: a live record joins the list of its own filter only (a late event of an old filter is dropped). */
export function withLiveEdge(state: ListState, listKey: string, edge: MemoryEdge): ListState {
  if (state.key !== listKey || belongsToOlderPages(state, edge)) return state;
  return { ...state, edges: mergeEdges(state.edges, [edge]) };
}

/** B5: a live record waits under the "N new" bar instead of moving the list; each record is held once. */
export function withHeldEdge(state: ListState, listKey: string, edge: MemoryEdge): ListState {
  if (state.key !== listKey || belongsToOlderPages(state, edge)) return state;
  if (state.edges.some((shown) => shown.node.id === edge.node.id)) return state;
  return { ...state, pending: mergeEdges(state.pending, [edge]) };
}

/** B5: "show" puts the held records into the list, newest first, each once; the bar empties. */
export function withPendingShown(state: ListState): ListState {
  if (state.pending.length === 0) return state;
  const joining = state.pending.filter((edge) => !belongsToOlderPages(state, edge));
  return { ...state, edges: mergeEdges(state.edges, joining), pending: [] };
}

/** L2: where a new subscription resumes: the newest record received, shown or held. */
export function newestCursor(state: ListState): string | null {
  const [shown] = state.edges;
  const [held] = state.pending;
  if (!shown || !held) return (shown ?? held)?.cursor ?? null;
  return compareEdges(held, shown) < 0 ? held.cursor : shown.cursor;
}

/**
 * L2: the first page fetched again once the subscription is up (nothing was shown to resume from). Its
 * records merge in; its cursor becomes the list's only if the list was still empty, so "Load older"
 * keeps continuing below what is shown (B4).
 */
export function withCatchUpPage(state: ListState, listKey: string, page: MemoryConnection): ListState {
  if (state.key !== listKey) return state;
  const wasEmpty = state.edges.length === 0 && state.endCursor === null;
  const edges = mergeEdges(state.edges, page.edges);
  const shownIds = new Set(edges.map((edge) => edge.node.id));
  return {
    ...state,
    edges,
    // A held record the page brought is shown now: the bar counts only what it would add.
    pending: state.pending.filter((edge) => !shownIds.has(edge.node.id)),
    endCursor: wasEmpty ? page.pageInfo.endCursor : state.endCursor,
    hasNextPage: wasEmpty ? page.pageInfo.hasNextPage : state.hasNextPage,
  };
}

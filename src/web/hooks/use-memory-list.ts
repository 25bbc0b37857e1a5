// The records of the active filter: its first page (B1, B2), "Load older" (B4), a retry after a failure,
// and the merges the live subscription asks for (B5), records held under the "N new records" bar included.
import { useCallback, useEffect, useRef, useState, type Dispatch, type StateUpdater } from 'preact/hooks';
import { countFilterOf, filterKey, toMemoryFilter, type BrowseFilter } from '../filters.js';
import type { GraphQLClient } from '../graphql.js';
import {
  EMPTY_LIST,
  firstPageList,
  withCatchUpPage,
  withHeldEdge,
  withLiveEdge,
  withOlderPage,
  withPendingShown,
  type ListState,
} from '../list-state.js';
import {
  FIRST_PAGE_QUERY,
  OLDER_PAGE_QUERY,
  PAGE_SIZE,
  type FirstPageResult,
  type MemoryConnection,
  type MemoryEdge,
  type OlderPageResult,
} from '../queries.js';
import { recordElementId } from '../records.js';
import type { TypeCounts } from './use-type-counts.js';

interface MemoryListOptions {
  client: GraphQLClient;
  /** The agent whose records these are (the page is keyed by it). */
  agentId: string;
  filter: BrowseFilter;
  timeZone: string;
  failed: (error: unknown) => boolean;
  /** The first page brings the type counts of the same window (B1). */
  types: Pick<TypeCounts, 'startLoading' | 'show' | 'stopLoading'>;
  announce: (message: string) => void;
}

export interface MemoryList {
  list: ListState;
  /** The list as last rendered, for callbacks that outlive a render (subscription, timers). */
  listRef: { readonly current: ListState };
  /** filterKey of the active filter. */
  key: string;
  /** The shown records are the active filter's first page (or more). */
  ready: boolean;
  loadOlder: () => Promise<void>;
  retry: () => void;
  addLiveEdge: (listKey: string, edge: MemoryEdge) => void;
  holdLiveEdge: (listKey: string, edge: MemoryEdge) => void;
  /** Shows the held records; returns their ids. */
  showPending: () => string[];
  /** Moves keyboard focus to a record once it is rendered. */
  focusAfterRender: (id: string | null) => void;
  addCatchUpPage: (listKey: string, page: MemoryConnection) => void;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError';
}

/** A new filter (or a retry) ⇒ a new first page and type counts for the same window (B1, B2). */
function useFirstPage(
  key: string,
  reloads: number,
  setList: Dispatch<StateUpdater<ListState>>,
  { client, agentId, filter, timeZone, failed, types }: MemoryListOptions,
): void {
  useEffect(() => {
    const controller = new AbortController();
    const apiFilter = toMemoryFilter(filter, timeZone);
    setList((current) => ({ ...current, status: 'loading', error: null }));
    types.startLoading();
    client
      .request<FirstPageResult>(
        FIRST_PAGE_QUERY,
        { agentId, filter: apiFilter, countFilter: countFilterOf(apiFilter), first: PAGE_SIZE },
        controller.signal,
      )
      .then((data) => {
        setList(firstPageList(key, apiFilter, data.memories));
        types.show(data.memoryTypes);
      })
      .catch((error: unknown) => {
        if (isAbort(error) || failed(error)) return;
        setList((current) => ({ ...current, status: 'error', error: messageOf(error) }));
        types.stopLoading();
      });
    return () => controller.abort();
    // `key` stands for `filter`: it changes exactly when the request would.
  }, [key, client, reloads]);
}

/**
 * Keyboard users land on the first record of the page they just loaded. The wish is kept until that
 * record is rendered — it may already be shown (a live record got there first, so the list does not
 * change) or arrive a render later.
 */
function useFocusAfterRender(edges: readonly MemoryEdge[]): (id: string | null) => void {
  const pending = useRef<string | null>(null);
  const [requests, setRequests] = useState(0);
  useEffect(() => {
    const id = pending.current;
    if (!id) return;
    const element = document.getElementById(recordElementId(id));
    if (!element) return;
    pending.current = null;
    element.focus();
  }, [edges, requests]);
  return useCallback((id: string | null) => {
    pending.current = id;
    setRequests((count) => count + 1);
  }, []);
}

export function useMemoryList(options: MemoryListOptions): MemoryList {
  const { client, agentId, filter, timeZone, failed, announce } = options;
  const key = filterKey(filter, timeZone);
  const [list, setList] = useState<ListState>(EMPTY_LIST);
  const [reloads, setReloads] = useState(0);
  const listRef = useRef(list);
  listRef.current = list;
  useFirstPage(key, reloads, setList, options);
  const focusAfterRender = useFocusAfterRender(list.edges);

  const loadOlder = async () => {
    const current = listRef.current;
    if (!current.hasNextPage || current.loadingOlder || !current.endCursor) return;
    setList((state) => ({ ...state, loadingOlder: true, olderError: null }));
    try {
      const data = await client.request<OlderPageResult>(OLDER_PAGE_QUERY, {
        agentId,
        filter: current.filter,
        first: PAGE_SIZE,
        after: current.endCursor,
      });
      if (listRef.current.key !== current.key) return;
      setList((state) => withOlderPage(state, data.memories));
      focusAfterRender(data.memories.edges[0]?.node.id ?? null);
      announce(`Loaded ${data.memories.edges.length} older records`);
    } catch (error) {
      if (failed(error)) return;
      setList((state) => ({ ...state, loadingOlder: false, olderError: messageOf(error) }));
    }
  };

  const addLiveEdge = useCallback(
    (listKey: string, edge: MemoryEdge) => setList((state) => withLiveEdge(state, listKey, edge)),
    [],
  );
  const holdLiveEdge = useCallback(
    (listKey: string, edge: MemoryEdge) => setList((state) => withHeldEdge(state, listKey, edge)),
    [],
  );
  const showPending = useCallback(() => {
    const ids = listRef.current.pending.map((edge) => edge.node.id);
    setList(withPendingShown);
    return ids;
  }, []);
  const addCatchUpPage = useCallback(
    (listKey: string, page: MemoryConnection) => setList((state) => withCatchUpPage(state, listKey, page)),
    [],
  );

  return {
    list,
    listRef,
    key,
    ready: list.status === 'ready' && list.key === key,
    loadOlder,
    retry: () => setReloads((n) => n + 1),
    addLiveEdge,
    holdLiveEdge,
    showPending,
    focusAfterRender,
    addCatchUpPage,
  };
}

// B5: the subscription of the shown list — started once its first page is shown, restarted when the filter
// changes — and what it adds: records at the top, or under the "N new records" bar while the operator reads
// further down or records flood in; "New" marks, an announcement, fresh type counts.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { GraphQLClient } from '../graphql.js';
import { arrivalsWithin, holdsLiveEdge } from '../live-hold.js';
import { acceptsLiveEdge, newestCursor } from '../list-state.js';
import { graphqlWsUrl, subscribeToMemories, type LiveStatus, type LiveSubscription } from '../live.js';
import {
  OLDER_PAGE_QUERY,
  PAGE_SIZE,
  type MemoryEdge,
  type MemoryFilter,
  type OlderPageResult,
} from '../queries.js';
import type { MemoryList } from './use-memory-list.js';
import type { TypeCounts } from './use-type-counts.js';

type ListControls = Pick<
  MemoryList,
  | 'ready'
  | 'key'
  | 'listRef'
  | 'addLiveEdge'
  | 'holdLiveEdge'
  | 'showPending'
  | 'focusAfterRender'
  | 'addCatchUpPage'
>;

interface LiveMemoriesOptions {
  token: string;
  agentId: string;
  client: GraphQLClient;
  memories: ListControls;
  failed: (error: unknown) => boolean;
  refreshTypes: TypeCounts['refresh'];
  announce: (message: string) => void;
}

interface LiveMemories {
  status: LiveStatus;
  /** When each live record was shown; it is marked "New" for a while. */
  arrivals: ReadonlyMap<string, number>;
  /** Shows the records waiting under the bar at the top of the list. */
  showPending: () => void;
  /** While a retry counts down: reconnect now. */
  retryNow: () => void;
}

/** The operator has scrolled into the list: its top is above the viewport. */
function scrolledIntoList(): boolean {
  const list = document.querySelector('ol.records');
  return list !== null && list.getBoundingClientRect().top < 0;
}

interface EdgeHandlerDeps {
  memories: ListControls;
  holding: { current: boolean };
  markNew: (ids: string[]) => void;
  announce: (message: string) => void;
  refreshTypes: TypeCounts['refresh'];
}

/** What a live record of the list `listKey` does: joins the top, or waits under the bar (B5). */
function liveEdgeHandler(listKey: string, apiFilter: MemoryFilter, deps: EdgeHandlerDeps) {
  const { memories, holding } = deps;
  let recent: number[] = [];
  return (edge: MemoryEdge) => {
    const current = memories.listRef.current;
    if (!acceptsLiveEdge(current, listKey, apiFilter, edge)) return;
    recent = arrivalsWithin(recent, Date.now());
    const hold = holdsLiveEdge({
      // The ref sees holds made since the last render (a burst arrives within one).
      holding: holding.current || current.pending.length > 0,
      scrolledIntoList: scrolledIntoList(),
      recentArrivals: recent.length,
    });
    if (hold) {
      if (!holding.current) deps.announce('New records are waiting at the top of the list');
      holding.current = true;
      memories.holdLiveEdge(listKey, edge);
    } else {
      memories.addLiveEdge(listKey, edge);
      deps.markNew([edge.node.id]);
      deps.announce(`New ${edge.node.type} record`);
    }
    deps.refreshTypes(memories.listRef);
  };
}

export function useLiveMemories(options: LiveMemoriesOptions): LiveMemories {
  const { token, agentId, client, memories, failed, refreshTypes, announce } = options;
  const [status, setStatus] = useState<LiveStatus>({ state: 'connecting' });
  const [arrivals, setArrivals] = useState<ReadonlyMap<string, number>>(new Map());
  const subscription = useRef<LiveSubscription | null>(null);
  const holding = useRef(false);
  const { ready, key, listRef, addCatchUpPage } = memories;
  const markNew = useCallback((ids: string[]) => {
    const at = Date.now();
    setArrivals((map) => new Map([...map, ...ids.map((id): [string, number] => [id, at])]));
  }, []);

  useEffect(() => {
    if (!ready) return;
    const { filter: apiFilter, key: listKey } = listRef.current;
    holding.current = false;
    const live = subscribeToMemories({
      url: graphqlWsUrl(window.location),
      token,
      agentId,
      filter: apiFilter,
      newestCursor: () => newestCursor(listRef.current),
      onStatus: setStatus,
      onAuthError: (error) => void failed(error),
      onEdge: liveEdgeHandler(listKey, apiFilter, { memories, holding, markNew, announce, refreshTypes }),
      // With nothing received there is no cursor to resume from: fetch the first page again once the
      // subscription is up, so a record written in between is not missed (L2).
      onSubscribed: (after) => {
        if (after !== null) return;
        client
          .request<OlderPageResult>(OLDER_PAGE_QUERY, {
            agentId,
            filter: apiFilter,
            first: PAGE_SIZE,
            after: null,
          })
          .then((data) => addCatchUpPage(listKey, data.memories))
          .catch((error: unknown) => void failed(error));
      },
    });
    subscription.current = live;
    return () => {
      live.stop();
      subscription.current = null;
    };
    // `memories` is a new object every render; the functions it carries are stable, `key` stands for the list.
  }, [ready, key, token, agentId, client, failed, refreshTypes, listRef, addCatchUpPage, announce, markNew]);

  const { showPending: showHeld, focusAfterRender } = memories;
  const showPending = useCallback(() => {
    holding.current = false;
    const ids = showHeld();
    markNew(ids);
    announce(`Showing ${ids.length} new records`);
    document.querySelector('.content')?.scrollIntoView({ block: 'start' });
    focusAfterRender(ids[0] ?? null);
  }, [showHeld, markNew, announce, focusAfterRender]);
  const retryNow = useCallback(() => subscription.current?.retryNow(), []);

  return { status, arrivals, showPending, retryNow };
}

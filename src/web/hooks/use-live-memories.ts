// B5: the subscription of the shown list — started once its first page is shown, restarted when the filter
// changes — and what it adds: records at the top, "New" marks, an announcement, fresh type counts.
import { useEffect, useState } from 'preact/hooks';
import type { GraphQLClient } from '../graphql.js';
import { acceptsLiveEdge } from '../list-state.js';
import { graphqlWsUrl, subscribeToMemories, type LiveStatus } from '../live.js';
import { OLDER_PAGE_QUERY, PAGE_SIZE, type OlderPageResult } from '../queries.js';
import type { MemoryList } from './use-memory-list.js';
import type { TypeCounts } from './use-type-counts.js';

interface LiveMemoriesOptions {
  token: string;
  client: GraphQLClient;
  memories: Pick<MemoryList, 'ready' | 'key' | 'listRef' | 'addLiveEdge' | 'addCatchUpPage'>;
  failed: (error: unknown) => boolean;
  refreshTypes: TypeCounts['refresh'];
  announce: (message: string) => void;
}

interface LiveMemories {
  status: LiveStatus;
  /** When each live record arrived; it is marked "New" for a while. */
  arrivals: ReadonlyMap<string, number>;
}

export function useLiveMemories({
  token,
  client,
  memories,
  failed,
  refreshTypes,
  announce,
}: LiveMemoriesOptions): LiveMemories {
  const [status, setStatus] = useState<LiveStatus>({ state: 'connecting' });
  const [arrivals, setArrivals] = useState<ReadonlyMap<string, number>>(new Map());
  const { ready, key, listRef, addLiveEdge, addCatchUpPage } = memories;

  useEffect(() => {
    if (!ready) return;
    const { filter: apiFilter, key: listKey } = listRef.current;
    const stop = subscribeToMemories({
      url: graphqlWsUrl(window.location),
      token,
      filter: apiFilter,
      newestCursor: () => listRef.current.edges[0]?.cursor ?? null,
      onStatus: setStatus,
      onAuthError: (error) => void failed(error),
      onEdge: (edge) => {
        if (!acceptsLiveEdge(listRef.current, listKey, apiFilter, edge)) return;
        addLiveEdge(listKey, edge);
        setArrivals((map) => new Map(map).set(edge.node.id, Date.now()));
        announce(`New ${edge.node.type} record`);
        refreshTypes(listRef);
      },
      // With nothing shown there is no cursor to resume from: fetch the first page again once the
      // subscription is up, so a record written in between is not missed (L2).
      onSubscribed: (after) => {
        if (after !== null) return;
        client
          .request<OlderPageResult>(OLDER_PAGE_QUERY, { filter: apiFilter, first: PAGE_SIZE, after: null })
          .then((data) => addCatchUpPage(listKey, data.memories))
          .catch((error: unknown) => void failed(error));
      },
    });
    return stop;
  }, [ready, key, token, client, failed, refreshTypes, listRef, addLiveEdge, addCatchUpPage, announce]);

  return { status, arrivals };
}

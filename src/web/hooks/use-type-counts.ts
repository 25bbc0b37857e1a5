// The type list's counts (B1, B2): set from the first page's answer, refreshed after live records arrive.
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { countFilterOf } from '../filters.js';
import type { GraphQLClient } from '../graphql.js';
import type { ListState } from '../list-state.js';
import { TYPE_COUNTS_QUERY, type MemoryTypeCount, type TypeCountsResult } from '../queries.js';

/** Live records come in bursts: one count request after the burst, not one per record. */
const TYPE_REFRESH_DELAY_MS = 400;

interface TypeCountsState {
  counts: MemoryTypeCount[];
  loading: boolean;
}

export interface TypeCounts {
  state: TypeCountsState;
  /** A new first page is on its way: the shown counts are about to change. */
  startLoading: () => void;
  /** The counts that came with the first page (same window, B1). */
  show: (counts: MemoryTypeCount[]) => void;
  /** The first page failed: keep the last counts, stop showing them as loading. */
  stopLoading: () => void;
  /** Counts the shown list's window again, shortly; dropped when the list changed meanwhile. */
  refresh: (shown: { readonly current: Pick<ListState, 'key' | 'filter'> }) => void;
}

/** The list's total: the counts of the selected types (none selected: of all), as counted with the same filter. */
export function totalOf(counts: readonly MemoryTypeCount[], selected: readonly string[]): number {
  return counts.reduce(
    (sum, c) => (selected.length === 0 || selected.includes(c.type) ? sum + c.count : sum),
    0,
  );
}

export function useTypeCounts(
  client: GraphQLClient,
  agentId: string,
  failed: (error: unknown) => boolean,
): TypeCounts {
  const [state, setState] = useState<TypeCountsState>({ counts: [], loading: true });
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  const refresh = useCallback<TypeCounts['refresh']>(
    (shown) => {
      clearTimeout(timer.current);
      timer.current = setTimeout(() => {
        const { key: listKey, filter: apiFilter } = shown.current;
        client
          .request<TypeCountsResult>(TYPE_COUNTS_QUERY, { agentId, countFilter: countFilterOf(apiFilter) })
          .then((data) => {
            if (shown.current.key === listKey) setState({ counts: data.memoryTypes, loading: false });
          })
          .catch((error: unknown) => void failed(error));
      }, TYPE_REFRESH_DELAY_MS);
    },
    [client, agentId, failed],
  );

  useEffect(() => () => clearTimeout(timer.current), []);

  const setters = useMemo(
    () => ({
      startLoading: () => setState((current) => ({ ...current, loading: true })),
      show: (counts: MemoryTypeCount[]) => setState({ counts, loading: false }),
      stopLoading: () => setState((current) => ({ ...current, loading: false })),
    }),
    [],
  );
  return { state, ...setters, refresh };
}

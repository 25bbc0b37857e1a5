// The agent's health (B8) and freshness board (B9), loaded once the page opens and kept current: a new
// record or a run change asks for a refresh, which runs at once or 30 s after the previous one (never
// more often). The header badge, the default tab and the Health tab all read this one state.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { GraphQLClient } from '../graphql.js';
import { HEALTH_QUERY, type HealthResult } from '../health-queries.js';
import { healthBadgeText, refreshAt } from '../health.js';
import { subscribeToHealthEvents } from '../health-live.js';
import { graphqlWsUrl } from '../live.js';

export interface HealthState {
  data: HealthResult | null;
  /** When the shown answer was asked for (epoch ms): the timeline's span ends there. */
  loadedAt: number | null;
  loading: boolean;
  error: string | null;
  /** The header badge's words ("2 producers late"), null while all are well. */
  badge: string | null;
  /** Ask again now (the Retry and Refresh buttons); live events go through the 30 s floor instead. */
  refresh: () => void;
}

interface HealthOptions {
  token: string;
  client: GraphQLClient;
  agentId: string;
  timeZone: string;
  failed: (error: unknown) => boolean;
}

export function useHealth({ token, client, agentId, timeZone, failed }: HealthOptions): HealthState {
  const [state, setState] = useState<Omit<HealthState, 'refresh' | 'badge'>>({
    data: null,
    loadedAt: null,
    loading: true,
    error: null,
  });
  const lastRefresh = useRef<number | null>(null);
  const pending = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const controller = useRef<AbortController | null>(null);

  const load = useCallback(() => {
    clearTimeout(pending.current);
    pending.current = undefined;
    controller.current?.abort();
    const abort = new AbortController();
    controller.current = abort;
    const at = Date.now();
    lastRefresh.current = at;
    setState((current) => ({ ...current, loading: true }));
    const variables = { agentId, window: { rolling: 'LAST_24H', timeZone } };
    client
      .request<HealthResult>(HEALTH_QUERY, variables, abort.signal)
      .then((data) => setState({ data, loadedAt: at, loading: false, error: null }))
      .catch((error: unknown) => {
        if (abort.signal.aborted || failed(error)) return;
        const message = error instanceof Error ? error.message : String(error);
        setState((current) => ({ ...current, loading: false, error: message }));
      });
  }, [client, agentId, timeZone, failed]);

  const requestRefresh = useCallback(() => {
    if (pending.current !== undefined) return;
    const now = Date.now();
    const at = refreshAt(lastRefresh.current, now);
    pending.current = setTimeout(load, at - now);
  }, [load]);

  useEffect(() => {
    load();
    const stop = subscribeToHealthEvents({
      url: graphqlWsUrl(window.location),
      token,
      agentId,
      onEvent: requestRefresh,
      onAuthError: (error) => void failed(error),
    });
    return () => {
      stop();
      clearTimeout(pending.current);
      controller.current?.abort();
    };
  }, [load, requestRefresh, token, agentId, failed]);

  const badge = healthBadgeText(state.data?.producerHealth.map((row) => row.status) ?? []);
  return { ...state, badge, refresh: load };
}

// The signed-in page: filters on the left, records on the right, kept live over graphql-ws (B1–B6).
import { h } from 'preact';
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import {
  browserTimeZone,
  describeTimeFilter,
  filterKey,
  toMemoryFilter,
  type BrowseFilter,
  type TimeFilter,
} from '../filters.js';
import { formatCount, formatHours, formatWindowBound } from '../format.js';
import { AuthError, createGraphQLClient } from '../graphql.js';
import { graphqlWsUrl, subscribeToMemories, type LiveStatus } from '../live.js';
import {
  FIRST_PAGE_QUERY,
  OLDER_PAGE_QUERY,
  PAGE_SIZE,
  TYPE_COUNTS_QUERY,
  type FirstPageResult,
  type MemoryEdge,
  type MemoryFilter,
  type MemoryTypeCount,
  type OlderPageResult,
  type ResolvedWindow,
  type TypeCountsResult,
} from '../queries.js';
import { matchesFilter, mergeEdges } from '../records.js';
import { TimeFilterControl, TypeList } from './filter-panel.js';
import { RecordCard, recordElementId } from './record-card.js';

interface ListState {
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

const EMPTY_LIST: ListState = {
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

const TICK_MS = 30_000;
const NEW_FOR_MS = 5 * 60_000;
const TYPE_REFRESH_DELAY_MS = 400;

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError';
}

function LiveIndicator({ status }: { status: LiveStatus }) {
  const text =
    status.state === 'live'
      ? 'Live'
      : status.state === 'connecting'
        ? 'Connecting…'
        : status.state === 'reconnecting'
          ? `Reconnecting in ${status.inSeconds}s`
          : 'Live updates paused';
  return h(
    'span',
    {
      class: `live live-${status.state}`,
      role: 'status',
      title: status.state === 'unavailable' ? `${status.message} (retrying in ${status.inSeconds}s)` : text,
      'data-live': status.state,
    },
    h('span', { class: 'live-dot', 'aria-hidden': 'true' }),
    text,
  );
}

export function MemoriesPage({
  token,
  onSignOut,
  onAuthFailure,
}: {
  token: string;
  onSignOut: () => void;
  onAuthFailure: (message: string) => void;
}) {
  const timeZone = useMemo(browserTimeZone, []);
  const client = useMemo(() => createGraphQLClient('/graphql', token), [token]);
  const [filter, setFilter] = useState<BrowseFilter>({ types: [], time: { kind: 'all' } });
  const key = filterKey(filter, timeZone);
  const [list, setList] = useState<ListState>(EMPTY_LIST);
  const [types, setTypes] = useState<{ counts: MemoryTypeCount[]; loading: boolean }>({
    counts: [],
    loading: true,
  });
  const [live, setLive] = useState<LiveStatus>({ state: 'connecting' });
  /** When each live record arrived; it is marked "New" for a while. */
  const [arrivals, setArrivals] = useState<ReadonlyMap<string, number>>(new Map());
  const [announcement, setAnnouncement] = useState('');
  const [now, setNow] = useState(Date.now());
  const [reloads, setReloads] = useState(0);

  const listRef = useRef(list);
  listRef.current = list;
  const focusAfterRender = useRef<string | null>(null);
  const typeRefreshTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  const failed = useCallback(
    (error: unknown): boolean => {
      if (error instanceof AuthError) {
        onAuthFailure(
          error.code === 'FORBIDDEN'
            ? 'This token may not browse memories. Use an operator token.'
            : 'The token was not accepted (unknown or revoked). Sign in again.',
        );
        return true;
      }
      return false;
    },
    [onAuthFailure],
  );

  // Freshness badges and "5 minutes ago" follow the clock while the page stays open.
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), TICK_MS);
    return () => clearInterval(timer);
  }, []);

  // A new filter ⇒ a new first page and type counts for the same window (B1, B2).
  useEffect(() => {
    const controller = new AbortController();
    const apiFilter = toMemoryFilter(filter, timeZone);
    setList((current) => ({ ...current, status: 'loading', error: null }));
    setTypes((current) => ({ ...current, loading: true }));
    client
      .request<FirstPageResult>(
        FIRST_PAGE_QUERY,
        { filter: apiFilter, window: apiFilter.window ?? null, first: PAGE_SIZE },
        controller.signal,
      )
      .then((data) => {
        setList({
          ...EMPTY_LIST,
          status: 'ready',
          key,
          filter: apiFilter,
          edges: data.memories.edges,
          endCursor: data.memories.pageInfo.endCursor,
          hasNextPage: data.memories.pageInfo.hasNextPage,
          window: data.memories.window,
        });
        setTypes({ counts: data.memoryTypes, loading: false });
      })
      .catch((error: unknown) => {
        if (isAbort(error) || failed(error)) return;
        setList((current) => ({ ...current, status: 'error', error: messageOf(error) }));
        setTypes((current) => ({ ...current, loading: false }));
      });
    return () => controller.abort();
    // `key` stands for `filter`: it changes exactly when the request would.
  }, [key, client, reloads]);

  const refreshTypes = useCallback(() => {
    clearTimeout(typeRefreshTimer.current);
    typeRefreshTimer.current = setTimeout(() => {
      const { key: listKey, filter: apiFilter } = listRef.current;
      client
        .request<TypeCountsResult>(TYPE_COUNTS_QUERY, { window: apiFilter.window ?? null })
        .then((data) => {
          if (listRef.current.key === listKey) setTypes({ counts: data.memoryTypes, loading: false });
        })
        .catch((error: unknown) => void failed(error));
    }, TYPE_REFRESH_DELAY_MS);
  }, [client, failed]);

  useEffect(() => () => clearTimeout(typeRefreshTimer.current), []);

  const ready = list.status === 'ready' && list.key === key;

  // B5: subscribe with the active filter once its first page is shown; resubscribe when it changes.
  useEffect(() => {
    if (!ready) return;
    const { filter: apiFilter, key: listKey } = listRef.current;
    const stop = subscribeToMemories({
      url: graphqlWsUrl(window.location),
      token,
      filter: apiFilter,
      newestCursor: () => listRef.current.edges[0]?.cursor ?? null,
      onStatus: setLive,
      onAuthError: (error) => void failed(error),
      onEdge: (edge) => {
        const current = listRef.current;
        if (current.key !== listKey || !matchesFilter(edge.node, apiFilter, current.window)) return;
        if (current.edges.some((shown) => shown.node.id === edge.node.id)) return;
        setList((state) =>
          state.key === listKey ? { ...state, edges: mergeEdges(state.edges, [edge]) } : state,
        );
        setArrivals((map) => new Map(map).set(edge.node.id, Date.now()));
        setAnnouncement(`New ${edge.node.type} record`);
        refreshTypes();
      },
      // With nothing shown there is no cursor to resume from: fetch the first page again once the
      // subscription is up, so a record written in between is not missed.
      onSubscribed: (after) => {
        if (after !== null) return;
        client
          .request<OlderPageResult>(OLDER_PAGE_QUERY, { filter: apiFilter, first: PAGE_SIZE, after: null })
          .then((data) => {
            setList((state) => {
              if (state.key !== listKey) return state;
              const wasEmpty = state.edges.length === 0 && state.endCursor === null;
              return {
                ...state,
                edges: mergeEdges(state.edges, data.memories.edges),
                endCursor: wasEmpty ? data.memories.pageInfo.endCursor : state.endCursor,
                hasNextPage: wasEmpty ? data.memories.pageInfo.hasNextPage : state.hasNextPage,
              };
            });
          })
          .catch((error: unknown) => void failed(error));
      },
    });
    return stop;
  }, [ready, key, token, client, failed, refreshTypes]);

  const loadOlder = async () => {
    const current = listRef.current;
    if (!current.hasNextPage || current.loadingOlder || !current.endCursor) return;
    setList((state) => ({ ...state, loadingOlder: true, olderError: null }));
    try {
      const data = await client.request<OlderPageResult>(OLDER_PAGE_QUERY, {
        filter: current.filter,
        first: PAGE_SIZE,
        after: current.endCursor,
      });
      if (listRef.current.key !== current.key) return;
      focusAfterRender.current = data.memories.edges[0]?.node.id ?? null;
      setList((state) => ({
        ...state,
        edges: mergeEdges(state.edges, data.memories.edges),
        endCursor: data.memories.pageInfo.endCursor ?? state.endCursor,
        hasNextPage: data.memories.pageInfo.hasNextPage,
        loadingOlder: false,
      }));
      setAnnouncement(`Loaded ${data.memories.edges.length} older records`);
    } catch (error) {
      if (failed(error)) return;
      setList((state) => ({ ...state, loadingOlder: false, olderError: messageOf(error) }));
    }
  };

  // Keyboard users land on the first record of the page they just loaded.
  useEffect(() => {
    const id = focusAfterRender.current;
    if (!id) return;
    focusAfterRender.current = null;
    document.getElementById(recordElementId(id))?.focus();
  }, [list.edges]);

  const shownIds = useMemo(() => new Set(list.edges.map((edge) => edge.node.id)), [list.edges]);
  const jumpTo = useCallback((id: string) => {
    const element = document.getElementById(recordElementId(id));
    element?.scrollIntoView({ block: 'center', behavior: 'smooth' });
    element?.focus({ preventScroll: true });
  }, []);

  const setTime = (time: TimeFilter) => setFilter((current) => ({ ...current, time }));
  const toggleType = (type: string) =>
    setFilter((current) => ({
      ...current,
      types: current.types.includes(type)
        ? current.types.filter((t) => t !== type)
        : [...current.types, type].sort(),
    }));
  const clearTypes = () => setFilter((current) => ({ ...current, types: [] }));
  const clearAll = () => setFilter({ types: [], time: { kind: 'all' } });

  const filtered = filter.types.length > 0 || filter.time.kind !== 'all';
  const stale = list.key !== key;

  return h(
    'div',
    { class: 'app' },
    h(
      'header',
      { class: 'topbar' },
      h(
        'div',
        { class: 'brand' },
        h('span', { class: 'brand-mark', 'aria-hidden': 'true' }),
        h('h1', null, 'Memories'),
      ),
      h(
        'div',
        { class: 'topbar-tools' },
        h(LiveIndicator, { status: live }),
        h('span', { class: 'zone', title: 'Times are shown in this time zone' }, timeZone),
        h('button', { type: 'button', class: 'btn btn-quiet', onClick: onSignOut }, 'Sign out'),
      ),
    ),
    h(
      'div',
      { class: 'layout' },
      h(
        'aside',
        { class: 'sidebar', 'aria-label': 'Filters' },
        h(TimeFilterControl, { time: filter.time, timeZone, onChange: setTime }),
        h(TypeList, {
          counts: types.counts,
          selected: filter.types,
          loading: types.loading,
          windowActive: filter.time.kind !== 'all',
          onToggle: toggleType,
          onClear: clearTypes,
        }),
      ),
      h(
        'main',
        { class: 'content', 'aria-busy': list.status === 'loading' },
        h(
          'div',
          { class: 'list-head' },
          h('h2', null, 'Records'),
          h(
            'p',
            { class: 'list-summary', 'data-summary': '' },
            `${describeTimeFilter(filter.time)} · ${
              filter.types.length ? filter.types.join(', ') : 'all types'
            } · ${formatCount(list.edges.length)}${list.hasNextPage ? '+' : ''} shown`,
          ),
          list.window && !stale
            ? h(
                'p',
                {
                  class: 'window-line',
                  'data-window-from': list.window.from,
                  'data-window-to': list.window.to,
                },
                `From ${formatWindowBound(list.window.from)} to ${formatWindowBound(list.window.to)} (${formatHours(
                  list.window.from,
                  list.window.to,
                )})`,
              )
            : null,
        ),
        h('p', { class: 'sr-only', 'aria-live': 'polite' }, announcement),
        list.status === 'error'
          ? h(
              'div',
              { class: 'alert', role: 'alert' },
              h('span', null, `Could not load records: ${list.error ?? 'unknown error'}`),
              h(
                'button',
                { type: 'button', class: 'btn btn-secondary', onClick: () => setReloads((n) => n + 1) },
                'Retry',
              ),
            )
          : null,
        list.status === 'loading' && list.edges.length === 0
          ? h(
              'div',
              { class: 'loading', role: 'status' },
              h('span', { class: 'spinner', 'aria-hidden': 'true' }),
              'Loading records…',
            )
          : null,
        list.status === 'ready' && list.edges.length === 0
          ? h(
              'div',
              { class: 'empty', role: 'status' },
              h('p', null, filtered ? 'No records match these filters.' : 'No records yet.'),
              h('p', { class: 'muted' }, 'New records appear here as soon as they are written.'),
              filtered
                ? h(
                    'button',
                    { type: 'button', class: 'btn btn-secondary', onClick: clearAll },
                    'Clear filters',
                  )
                : null,
            )
          : null,
        list.edges.length
          ? h(
              'ol',
              {
                class: `records${list.status === 'loading' ? ' records-loading' : ''}`,
                'aria-label': 'Records, newest first',
              },
              list.edges.map((edge) =>
                h(
                  'li',
                  { key: edge.node.id },
                  h(RecordCard, {
                    memory: edge.node,
                    now,
                    isNew: (arrivals.get(edge.node.id) ?? -Infinity) > now - NEW_FOR_MS,
                    isShown: (id: string) => shownIds.has(id),
                    onJump: jumpTo,
                  }),
                ),
              ),
            )
          : null,
        list.status === 'ready' && list.edges.length
          ? h(
              'div',
              { class: 'list-foot' },
              list.olderError
                ? h(
                    'p',
                    { class: 'field-error', role: 'alert' },
                    `Could not load older records: ${list.olderError}`,
                  )
                : null,
              list.hasNextPage
                ? h(
                    'button',
                    {
                      type: 'button',
                      class: 'btn btn-secondary load-older',
                      onClick: () => void loadOlder(),
                      disabled: list.loadingOlder,
                    },
                    list.loadingOlder ? 'Loading…' : 'Load older',
                  )
                : h('p', { class: 'muted end' }, 'No older records.'),
            )
          : null,
      ),
    ),
  );
}

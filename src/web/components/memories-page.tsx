// The signed-in page: filters on the left, records on the right, kept live over graphql-ws (B1–B6).
import { useMemo, useState } from 'preact/hooks';
import { browserTimeZone } from '../filters.js';
import { createGraphQLClient } from '../graphql.js';
import { useAuthFailure } from '../hooks/use-auth-failure.js';
import { useBrowseFilter } from '../hooks/use-browse-filter.js';
import { useLiveMemories } from '../hooks/use-live-memories.js';
import { useMemoryList } from '../hooks/use-memory-list.js';
import { useNow } from '../hooks/use-now.js';
import { useTypeCounts } from '../hooks/use-type-counts.js';
import { TimeFilterControl, TypeList } from './filter-panel.js';
import { ListFoot, ListHead, LoadError, Loading, NoRecords, Records } from './record-list.js';
import { TopBar } from './top-bar.js';

/** Freshness badges, "5 minutes ago" and "New" marks are re-rendered this often. */
const TICK_MS = 30_000;

interface MemoriesPageProps {
  token: string;
  onSignOut: () => void;
  onAuthFailure: (message: string) => void;
}

export function MemoriesPage({ token, onSignOut, onAuthFailure }: MemoriesPageProps) {
  const timeZone = useMemo(browserTimeZone, []);
  const client = useMemo(() => createGraphQLClient('/graphql', token), [token]);
  const failed = useAuthFailure(onAuthFailure);
  const browse = useBrowseFilter();
  const [announcement, announce] = useState('');
  const now = useNow(TICK_MS);
  const types = useTypeCounts(client, failed);
  const memories = useMemoryList({ client, filter: browse.filter, timeZone, failed, types, announce });
  const live = useLiveMemories({ token, client, memories, failed, refreshTypes: types.refresh, announce });
  const { filter } = browse;
  const { list } = memories;

  return (
    <div class="app">
      <TopBar live={live.status} timeZone={timeZone} onSignOut={onSignOut} />
      <div class="layout">
        <aside class="sidebar" aria-label="Filters">
          <TimeFilterControl time={filter.time} timeZone={timeZone} onChange={browse.setTime} />
          <TypeList
            counts={types.state.counts}
            selected={filter.types}
            loading={types.state.loading}
            windowActive={filter.time.kind !== 'all'}
            onToggle={browse.toggleType}
            onClear={browse.clearTypes}
          />
        </aside>
        <main class="content" aria-busy={list.status === 'loading'}>
          <ListHead filter={filter} list={list} stale={list.key !== memories.key} />
          <p class="sr-only" aria-live="polite">
            {announcement}
          </p>
          {list.status === 'error' ? <LoadError message={list.error} onRetry={memories.retry} /> : null}
          {list.status === 'loading' && list.edges.length === 0 ? <Loading /> : null}
          {list.status === 'ready' && list.edges.length === 0 ? (
            <NoRecords filtered={browse.filtered} onClearAll={browse.clearAll} />
          ) : null}
          {list.edges.length ? <Records list={list} now={now} arrivals={live.arrivals} /> : null}
          {list.status === 'ready' && list.edges.length ? (
            <ListFoot list={list} onLoadOlder={() => void memories.loadOlder()} />
          ) : null}
        </main>
      </div>
    </div>
  );
}

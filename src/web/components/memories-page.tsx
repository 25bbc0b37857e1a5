// One agent's records: filters on the left, records on the right, kept live over graphql-ws (B1–B6).
import { useEffect, useMemo, useState } from 'preact/hooks';
import { browserTimeZone, describeFilter, windowIsOpen } from '../filters.js';
import type { GraphQLClient } from '../graphql.js';
import { useBrowseFilter } from '../hooks/use-browse-filter.js';
import { useLiveMemories } from '../hooks/use-live-memories.js';
import { useMemoryList } from '../hooks/use-memory-list.js';
import { useNow } from '../hooks/use-now.js';
import { useTypeCounts } from '../hooks/use-type-counts.js';
import { FilterColumn } from './filter-column.js';
import { TimeFilterControl, TypeList } from './filter-panel.js';
import { ListFoot, ListHead, LoadError, Loading, NewRecordsBar, NoRecords, Records } from './record-list.js';
import { TopBar, type Who } from './top-bar.js';

/** Freshness badges, "5 minutes ago" and "New" marks are re-rendered this often. */
const TICK_MS = 30_000;

interface MemoriesPageProps {
  token: string;
  client: GraphQLClient;
  failed: (error: unknown) => boolean;
  /** The agent shown (and, for the admin token, the ones it may switch to). */
  who: Who;
  onSignOut: () => void;
}

export function MemoriesPage({ token, client, failed, who, onSignOut }: MemoriesPageProps) {
  const agentId = who.agent.id;
  const timeZone = useMemo(browserTimeZone, []);
  const browse = useBrowseFilter();
  const [announcement, announce] = useState('');
  const now = useNow(TICK_MS);
  const types = useTypeCounts(client, agentId, failed);
  const memories = useMemoryList({
    client,
    agentId,
    filter: browse.filter,
    timeZone,
    failed,
    types,
    announce,
  });
  const live = useLiveMemories({
    token,
    agentId,
    client,
    memories,
    failed,
    refreshTypes: types.refresh,
    announce,
  });
  const { filter } = browse;
  const { list } = memories;
  useEffect(() => {
    const before = document.title;
    document.title = `${who.agent.name} · Memories`;
    return () => void (document.title = before);
  }, [who.agent.name]);

  return (
    <div class="app">
      <TopBar
        who={who}
        live={{ status: live.status, onRetryNow: live.retryNow }}
        timeZone={timeZone}
        onSignOut={onSignOut}
      />
      <div class="layout">
        <FilterColumn summary={describeFilter(filter)}>
          <TimeFilterControl time={filter.time} timeZone={timeZone} onChange={browse.setTime} />
          <TypeList
            counts={types.state.counts}
            selected={filter.types}
            loading={types.state.loading}
            windowActive={filter.time.kind !== 'all'}
            onToggle={browse.toggleType}
            onClear={browse.clearTypes}
          />
        </FilterColumn>
        <main class="content" aria-busy={list.status === 'loading'}>
          <ListHead filter={filter} list={list} stale={list.key !== memories.key} />
          <p class="sr-only" aria-live="polite">
            {announcement}
          </p>
          {list.status === 'error' ? <LoadError message={list.error} onRetry={memories.retry} /> : null}
          {list.status === 'loading' && list.edges.length === 0 ? <Loading /> : null}
          {list.status === 'ready' && list.edges.length === 0 && list.pending.length === 0 ? (
            <NoRecords
              filtered={browse.filtered}
              open={windowIsOpen(filter.time, new Date(now))}
              onClearAll={browse.clearAll}
            />
          ) : null}
          {list.pending.length ? (
            <NewRecordsBar count={list.pending.length} onShow={live.showPending} />
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

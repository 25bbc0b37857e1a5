// One agent's records: filters on the left, records on the right, kept live over graphql-ws (B1–B6);
// a record's page and the Context tab take their place when the route names them.
import { useMemo, useState } from 'preact/hooks';
import { browserTimeZone, describeFilter, windowIsOpen } from '../filters.js';
import type { GraphQLClient } from '../graphql.js';
import { useBrowseFilter } from '../hooks/use-browse-filter.js';
import { useLiveMemories } from '../hooks/use-live-memories.js';
import { useMemoryList } from '../hooks/use-memory-list.js';
import { useNow } from '../hooks/use-now.js';
import { useViewRoute } from '../hooks/use-route.js';
import { useTypeCounts } from '../hooks/use-type-counts.js';
import { AgentViews } from './agent-views.js';
import { FilterColumn } from './filter-column.js';
import { TimeFilterControl, TypeList } from './filter-panel.js';
import { ListFoot, ListHead, LoadError, Loading, NewRecordsBar, NoRecords, Records } from './record-list.js';
import { TopBar, type Who } from './top-bar.js';
import { useViewTitle } from './view-states.js';
import { ViewTabs } from './view-tabs.js';

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
  // The record page and the Context tab show instead of the list, which stays mounted (agent-views.tsx).
  const routing = useViewRoute();
  const onList = routing.route.kind === 'list';
  // The other views name the browser tab themselves.
  useViewTitle(onList ? `${who.agent.name} · Memories` : null);

  return (
    <div class="app">
      <TopBar
        who={who}
        tabs={<ViewTabs route={routing.route} />}
        live={{ status: live.status, onRetryNow: live.retryNow }}
        timeZone={timeZone}
        onSignOut={onSignOut}
      />
      <div class="layout" hidden={!onList}>
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
      <AgentViews routing={routing} client={client} who={who} failed={failed} timeZone={timeZone} />
    </div>
  );
}

// One agent's records: filters on the left, records on the right, kept live over graphql-ws (B1–B6).
import { useMemo, useState } from 'preact/hooks';
import { browserTimeZone, describeFilter, windowIsOpen } from '../filters.js';
import type { GraphQLClient } from '../graphql.js';
import { useBrowseFilter } from '../hooks/use-browse-filter.js';
import { useDocumentTitle } from '../hooks/use-document-title.js';
import { useLiveMemories } from '../hooks/use-live-memories.js';
import { useMemoryList } from '../hooks/use-memory-list.js';
import { useNow } from '../hooks/use-now.js';
import { useFilterOptions } from '../hooks/use-filter-options.js';
import { totalOf, useTypeCounts } from '../hooks/use-type-counts.js';
import { ExportMenu } from './export-menu.js';
import { BrowseFilters } from './filter-column.js';
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
  const options = useFilterOptions(client, agentId, failed);
  const summary = describeFilter(filter, (id) => options.producers.find((p) => p.id === id)?.name ?? null);
  const { list } = memories;
  useDocumentTitle(`${who.agent.name} · Memories`);

  return (
    <div class="app">
      <TopBar
        who={who}
        live={{ status: live.status, onRetryNow: live.retryNow }}
        timeZone={timeZone}
        onSignOut={onSignOut}
      />
      <div class="layout">
        <BrowseFilters
          browse={browse}
          summary={summary}
          types={types.state}
          options={options}
          timeZone={timeZone}
        />
        <main class="content" aria-busy={list.status === 'loading'}>
          <ListHead
            summary={summary}
            total={types.state.loading ? null : totalOf(types.state.counts, filter.types)}
            list={list}
            stale={list.key !== memories.key}
            actions={<ExportMenu token={token} agentId={agentId} filter={list.filter} failed={failed} />}
          />
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

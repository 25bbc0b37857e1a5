// One agent's records: filters on the left, records on the right, kept live over graphql-ws (B1–B6);
// a record's page, the Context tab and the Health tab take their place when the route names them.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { browserTimeZone, describeFilter, windowIsOpen } from '../filters.js';
import type { GraphQLClient } from '../graphql.js';
import { useBrowseFilter } from '../hooks/use-browse-filter.js';
import { useAgentList } from '../hooks/use-agent-list.js';
import { useNow } from '../hooks/use-now.js';
import { useFilterOptions } from '../hooks/use-filter-options.js';
import { useHealth, type HealthState } from '../hooks/use-health.js';
import { defaultTab } from '../health.js';
import { isRouteHash } from '../route.js';
import { useViewRoute, type RouteControl } from '../hooks/use-route.js';
import { totalOf } from '../hooks/use-type-counts.js';
import { AgentViews } from './agent-views.js';
import { ExportMenu } from './export-menu.js';
import { BrowseFilters } from './filter-column.js';
import { ListBody, ListHead } from './record-list.js';
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

/** A bare address (no view named) opens the Health tab while a producer is LATE or MISSING, once. */
function useOpeningTab(health: HealthState, routing: RouteControl): HealthState {
  const opening = useRef<boolean | null>(isRouteHash(window.location.hash));
  useEffect(() => {
    if (opening.current === null || !health.data) return;
    // Named at opening, or since (a link followed, a view chosen): the address wins.
    const choice = defaultTab(
      opening.current || isRouteHash(window.location.hash),
      health.data.producerHealth.map((row) => row.status),
    );
    opening.current = null;
    if (choice === 'health' && routing.route.kind === 'list') {
      routing.navigate({ kind: 'health', instrument: null, span: '24h' }, 'replace');
    }
  }, [health.data]);
  return health;
}

export function MemoriesPage({ token, client, failed, who, onSignOut }: MemoriesPageProps) {
  const agentId = who.agent.id;
  const timeZone = useMemo(browserTimeZone, []);
  const browse = useBrowseFilter();
  const [announcement, announce] = useState('');
  const now = useNow(TICK_MS);
  const { types, memories, live } = useAgentList({
    token,
    client,
    agentId,
    filter: browse.filter,
    timeZone,
    failed,
    announce,
  });
  const { filter } = browse;
  const options = useFilterOptions(client, agentId, failed);
  const summary = describeFilter(filter, (id) => options.producers.find((p) => p.id === id)?.name ?? null);
  const { list } = memories;
  // The other views show instead of the list, which stays mounted (agent-views.tsx).
  const routing = useViewRoute();
  const onList = routing.route.kind === 'list';
  const health = useOpeningTab(useHealth({ token, client, agentId, timeZone, failed }), routing);
  // The other views name the browser tab themselves.
  useViewTitle(onList ? `${who.agent.name} · Memories` : null);

  return (
    <div class="app">
      <TopBar
        who={who}
        tabs={<ViewTabs route={routing.route} badge={health.badge} />}
        live={{ status: live.status, onRetryNow: live.retryNow }}
        timeZone={timeZone}
        onSignOut={onSignOut}
      />
      <div class="layout" hidden={!onList}>
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
          <ListBody
            list={list}
            now={now}
            arrivals={live.arrivals}
            filtered={browse.filtered}
            open={windowIsOpen(filter.time, new Date(now))}
            actions={{
              retry: memories.retry,
              clearAll: browse.clearAll,
              showPending: live.showPending,
              loadOlder: () => void memories.loadOlder(),
            }}
          />
        </main>
      </div>
      <AgentViews
        routing={routing}
        client={client}
        who={who}
        failed={failed}
        timeZone={timeZone}
        health={health}
      />
    </div>
  );
}

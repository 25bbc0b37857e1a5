// The Health tab (B8, B9): the desk's view of one agent — the freshness board (B9), the producer table
// (B8) and the timeline of one instrument — kept current by the live refreshes of use-health.ts.
import { useEffect, useRef } from 'preact/hooks';
import { formatInstant } from '../format.js';
import type { GraphQLClient } from '../graphql.js';
import type { HealthState } from '../hooks/use-health.js';
import type { RouteControl } from '../hooks/use-route.js';
import type { AgentSummary } from '../queries.js';
import { FreshnessBoardView } from './freshness-board.js';
import { TimelineSection } from './freshness-timeline.js';
import { ProducerTable } from './producer-table.js';
import { useViewTitle, ViewError, ViewLoading } from './view-states.js';

type HealthRoute = Extract<RouteControl['route'], { kind: 'health' }>;

interface HealthTabProps {
  route: HealthRoute;
  navigate: RouteControl['navigate'];
  client: GraphQLClient;
  agent: AgentSummary;
  health: HealthState;
  failed: (error: unknown) => boolean;
}

export function HealthTab({ route, navigate, client, agent, health, failed }: HealthTabProps) {
  useViewTitle(`Health · ${agent.name}`);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const { data, loadedAt } = health;
  const instruments = data?.freshnessBoard.instruments.map((board) => board.instrument) ?? [];
  const instrument = route.instrument ?? instruments[0] ?? null;
  return (
    <main class="view health-tab" aria-labelledby="health-title">
      <header class="view-head">
        <h2 id="health-title" tabIndex={-1} ref={heading}>
          Health
        </h2>
        <p class="muted">
          Whether this agent’s producers deliver on schedule, and what its Trading runs get now and got over
          time.
          {data ? (
            <>
              {' Board as of '}
              <time dateTime={data.freshnessBoard.at} title={data.freshnessBoard.at}>
                {formatInstant(data.freshnessBoard.at)}
              </time>
              {'; it follows new records and runs live. '}
            </>
          ) : null}
          <button type="button" class="btn btn-quiet btn-small" onClick={health.refresh}>
            Refresh
          </button>
        </p>
      </header>
      {health.error ? <ViewError what="the health" message={health.error} onRetry={health.refresh} /> : null}
      {!data ? (
        health.error ? null : (
          <ViewLoading text="Loading the health…" />
        )
      ) : (
        <div class={health.loading ? 'health-panels ctx-loading' : 'health-panels'}>
          <FreshnessBoardView board={data.freshnessBoard} />
          <ProducerTable health={data.producerHealth} />
          {instrument && loadedAt !== null ? (
            <TimelineSection
              client={client}
              agentId={agent.id}
              instruments={
                instrument && !instruments.includes(instrument) ? [...instruments, instrument] : instruments
              }
              instrument={instrument}
              span={route.span}
              endsAt={loadedAt}
              failed={failed}
              onChange={(next) => navigate({ ...route, instrument, ...next }, 'replace')}
            />
          ) : null}
        </div>
      )}
    </main>
  );
}

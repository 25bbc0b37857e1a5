// The Context tab (C9): choose an instrument and, optionally, an instant (C9), and see
// exactly what a Trading run of this agent is given — the tradingContext answer, nothing added.
import { useEffect, useRef } from 'preact/hooks';
import { formatInstant } from '../format.js';
import type { GraphQLClient } from '../graphql.js';
import { useQuery } from '../hooks/use-query.js';
import type { RouteControl } from '../hooks/use-route.js';
import {
  AGENT_INSTRUMENTS_QUERY,
  CONTEXT_QUERY,
  type AgentInstrumentsResult,
  type ContextResult,
} from '../page-queries.js';
import type { AgentSummary } from '../queries.js';
import { AsOfForm } from './as-of-form.js';
import { ContextView } from './context-view.js';
import { useViewTitle, ViewError, ViewLoading } from './view-states.js';

type ContextRoute = Extract<RouteControl['route'], { kind: 'context' }>;

interface ContextTabProps {
  route: ContextRoute;
  navigate: RouteControl['navigate'];
  client: GraphQLClient;
  agent: AgentSummary;
  failed: (error: unknown) => boolean;
  timeZone: string;
}

interface ContextPanelProps {
  client: GraphQLClient;
  agentId: string;
  instrument: string;
  at: string | null;
  failed: (error: unknown) => boolean;
}

function ContextPanel({ client, agentId, instrument, at, failed }: ContextPanelProps) {
  const variables = { agentId, instrument, at };
  const { state, retry } = useQuery<ContextResult>(client, CONTEXT_QUERY, variables, failed);
  const context = state.data?.tradingContext;
  if (state.status === 'error')
    return <ViewError what="the context" message={state.message} onRetry={retry} />;
  if (!context) return <ViewLoading text="Loading the context…" />;
  const loading = state.status === 'loading';
  return (
    <div class={loading ? 'ctx-panel ctx-loading' : 'ctx-panel'} aria-busy={loading}>
      <p class="ctx-at" data-at={context.at} data-now={at === null ? '' : undefined}>
        <strong>{context.instrument}</strong>
        {at === null ? ' now, evaluated at ' : ' as of '}
        <time dateTime={context.at} title={context.at}>
          {formatInstant(context.at)}
        </time>
        {at === null ? (
          <button type="button" class="btn btn-quiet btn-small" onClick={retry}>
            Refresh
          </button>
        ) : null}
      </p>
      <ContextView context={context} />
    </div>
  );
}

function InstrumentChoice({ instruments, value, onChange }: InstrumentChoiceProps) {
  // An address may name an instrument the agent no longer selects (its history stays readable, C9).
  const options = value && !instruments.includes(value) ? [...instruments, value] : instruments;
  return (
    <label class="instrument-choice">
      <span>Instrument</span>
      <select name="instrument" value={value ?? ''} onChange={(event) => onChange(event.currentTarget.value)}>
        {options.map((instrument) => (
          <option key={instrument} value={instrument}>
            {instruments.includes(instrument) ? instrument : `${instrument} (not selected now)`}
          </option>
        ))}
      </select>
    </label>
  );
}

interface InstrumentChoiceProps {
  instruments: string[];
  value: string | null;
  onChange: (instrument: string) => void;
}

export function ContextTab({ route, navigate, client, agent, failed, timeZone }: ContextTabProps) {
  const { state, retry } = useQuery<AgentInstrumentsResult>(
    client,
    AGENT_INSTRUMENTS_QUERY,
    { agentId: agent.id },
    failed,
  );
  const instruments = state.data?.agent?.instruments ?? [];
  const first = instruments[0];
  useViewTitle(`Context${route.instrument ? ` · ${route.instrument}` : ''} · ${agent.name}`);
  // Without an instrument in the address, the agent's first one (the address then says so).
  useEffect(() => {
    if (!route.instrument && first) navigate({ ...route, instrument: first }, 'replace');
  }, [route.instrument, first]);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <main class="view context-tab" aria-labelledby="context-title">
      <header class="view-head">
        <h2 id="context-title" tabIndex={-1} ref={heading}>
          Trading context
        </h2>
        <p class="muted">
          Exactly what a Trading run of this agent is given for one instrument: the latest research of each
          producer and type (fresh ones in full, the rest as stubs), corrections with their status, and the
          agent’s learnings. Choose an instant to see it as it was then.
        </p>
      </header>
      <div class="context-controls">
        <InstrumentChoice
          instruments={instruments}
          value={route.instrument}
          onChange={(instrument) => navigate({ ...route, instrument })}
        />
        <AsOfForm at={route.at} timeZone={timeZone} onApply={(at) => navigate({ ...route, at })} />
      </div>
      {state.status === 'error' ? (
        <ViewError what="the instruments" message={state.message} onRetry={retry} />
      ) : null}
      {state.status === 'ready' && !instruments.length && !route.instrument ? (
        <p class="empty">This agent selects no instruments: there is no trading context to show.</p>
      ) : null}
      {route.instrument ? (
        <ContextPanel
          client={client}
          agentId={agent.id}
          instrument={route.instrument}
          at={route.at}
          failed={failed}
        />
      ) : null}
    </main>
  );
}

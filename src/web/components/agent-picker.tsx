// The admin token's first screen (B8: the fleet overview): every agent, by name, with what
// the desk checks first — instruments selected, producers healthy / late / missing, the last decision and
// the records of the last 24 h. Each name is a link to `/?agent=<id>`, so the choice is in the address
// (shareable, survives a reload) and Back returns here. The summary arrives after the names.
import { addressWithAgent } from '../agent-url.js';
import { formatCount, formatInstant, shortId } from '../format.js';
import type { GraphQLClient } from '../graphql.js';
import { FLEET_QUERY, type FleetAgent, type FleetResult } from '../health-queries.js';
import { useQuery } from '../hooks/use-query.js';
import type { AgentSummary } from '../queries.js';
import { ScrollRegion } from './metadata.js';

interface AgentPickerProps {
  agents: AgentSummary[];
  /** The address named an agent that does not exist (or the token cannot see). */
  unknownId: string | null;
  onChoose: (agentId: string) => void;
  client: GraphQLClient;
  failed: (error: unknown) => boolean;
}

function AgentLink({ agent, onChoose }: { agent: AgentSummary; onChoose: (agentId: string) => void }) {
  const href = addressWithAgent(window.location.pathname, window.location.search, agent.id);
  const open = (event: MouseEvent) => {
    // A modified click opens a new tab or window as links do; a plain one stays in this page.
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    onChoose(agent.id);
  };
  return (
    <a class="agent-link" href={href} onClick={open} data-agent-id={agent.id}>
      <span class="agent-link-name">{agent.name}</span>
      <code class="muted" title={agent.id}>
        {shortId(agent.id)}
      </code>
    </a>
  );
}

function SummaryCells({ fleet }: { fleet: FleetAgent | undefined }) {
  if (!fleet) {
    return (
      <td colSpan={4} class="muted">
        …
      </td>
    );
  }
  const { health } = fleet;
  const late = health.producersLate + health.producersMissing > 0;
  return (
    <>
      <td data-cell="instruments">
        {fleet.instruments.length ? fleet.instruments.join(', ') : <span class="muted">none</span>}
      </td>
      <td data-cell="producers" class={late ? 'fleet-late' : undefined}>
        {`${health.producersHealthy} / ${health.producersLate} / ${health.producersMissing}`}
      </td>
      <td data-cell="decision">
        {health.lastDecisionAt ? (
          <time dateTime={health.lastDecisionAt} title={health.lastDecisionAt}>
            {formatInstant(health.lastDecisionAt)}
          </time>
        ) : (
          <span class="muted">none</span>
        )}
      </td>
      <td data-cell="records" class="num">
        {formatCount(health.recordsLast24h)}
      </td>
    </>
  );
}

function FleetTable({ agents, onChoose, client, failed }: Omit<AgentPickerProps, 'unknownId'>) {
  const { state } = useQuery<FleetResult>(client, FLEET_QUERY, {}, failed);
  const byId = new Map((state.data?.agents ?? []).map((agent) => [agent.id, agent]));
  return (
    <ScrollRegion label="Agents">
      <table
        class="grid-table fleet-table agent-list"
        aria-label="Agents"
        aria-busy={state.status === 'loading'}
      >
        <thead>
          <tr>
            <th scope="col">Agent</th>
            <th scope="col">Instruments selected</th>
            <th scope="col">Producers healthy / late / missing</th>
            <th scope="col">Last decision</th>
            <th scope="col">Records, 24 h</th>
          </tr>
        </thead>
        <tbody>
          {agents.map((agent) => (
            <tr key={agent.id} data-agent={agent.name}>
              <th scope="row">
                <AgentLink agent={agent} onChoose={onChoose} />
              </th>
              <SummaryCells fleet={byId.get(agent.id)} />
            </tr>
          ))}
        </tbody>
      </table>
      {state.status === 'error' ? (
        <p class="muted">{`The summary could not be loaded: ${state.message}`}</p>
      ) : null}
    </ScrollRegion>
  );
}

export function AgentPicker({ agents, unknownId, onChoose, client, failed }: AgentPickerProps) {
  return (
    <main class="picker picker-wide">
      <section class="picker-card fleet-card" aria-labelledby="picker-title">
        <h2 id="picker-title">Choose an agent</h2>
        <p class="muted">
          The admin token sees every agent. The one you choose is kept in the address, so you can share the
          view or reload it, and switch agents from the top bar.
        </p>
        {unknownId ? (
          <p class="alert" role="alert">{`No agent with id ${unknownId}. Choose one below.`}</p>
        ) : null}
        {agents.length ? (
          <FleetTable agents={agents} onChoose={onChoose} client={client} failed={failed} />
        ) : (
          <p class="empty">No agents yet. Create one with the createAgent mutation.</p>
        )}
      </section>
    </main>
  );
}

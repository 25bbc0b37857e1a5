// The admin token's first screen: every agent, by name. Each is a link to `/?agent=<id>`, so the choice
// is in the address (shareable, survives a reload) and Back returns here.
import { addressWithAgent } from '../agent-url.js';
import { shortId } from '../format.js';
import type { AgentSummary } from '../queries.js';

interface AgentPickerProps {
  agents: AgentSummary[];
  /** The address named an agent that does not exist (or the token cannot see). */
  unknownId: string | null;
  onChoose: (agentId: string) => void;
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
    <li>
      <a class="agent-link" href={href} onClick={open} data-agent-id={agent.id}>
        <span class="agent-link-name">{agent.name}</span>
        <code class="muted" title={agent.id}>
          {shortId(agent.id)}
        </code>
      </a>
    </li>
  );
}

export function AgentPicker({ agents, unknownId, onChoose }: AgentPickerProps) {
  return (
    <main class="picker">
      <section class="picker-card" aria-labelledby="picker-title">
        <h2 id="picker-title">Choose an agent</h2>
        <p class="muted">
          The admin token sees every agent. The one you choose is kept in the address, so you can share the
          view or reload it, and switch agents from the top bar.
        </p>
        {unknownId ? (
          <p class="alert" role="alert">{`No agent with id ${unknownId}. Choose one below.`}</p>
        ) : null}
        {agents.length ? (
          <ul class="agent-list" aria-label="Agents">
            {agents.map((agent) => (
              <AgentLink key={agent.id} agent={agent} onChoose={onChoose} />
            ))}
          </ul>
        ) : (
          <p class="empty">No agents yet. Create one with the createAgent mutation.</p>
        )}
      </section>
    </main>
  );
}

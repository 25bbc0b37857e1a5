// A signed-in tab: who the token is decides what it shows. An operator token browses its own agent; the
// admin token picks an agent (kept in the address) and switches agents from the top bar.
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useMemo } from 'preact/hooks';
import { createGraphQLClient } from '../graphql.js';
import { useAgentAddress } from '../hooks/use-agent-address.js';
import { useAuthFailure } from '../hooks/use-auth-failure.js';
import { useViewer } from '../hooks/use-viewer.js';
import { AgentPicker } from './agent-picker.js';
import { MemoriesPage } from './memories-page.js';
import { TopBar } from './top-bar.js';

interface SessionProps {
  token: string;
  onSignOut: () => void;
  /** Ends this token's session with the reason (ignored once another token took over). */
  onAuthFailure: (token: string, message: string) => void;
}

/** The page before an agent is shown: the top bar with sign-out, and what is in between. */
function Shell({ onSignOut, children }: { onSignOut: () => void; children: ComponentChildren }) {
  return (
    <div class="app">
      <TopBar onSignOut={onSignOut} />
      {children}
    </div>
  );
}

function SessionPending({ message, onRetry }: { message: string | null; onRetry: () => void }) {
  return (
    <main class="picker">
      {message === null ? (
        <div class="loading" role="status">
          <span class="spinner" aria-hidden="true" />
          Signing in…
        </div>
      ) : (
        <div class="alert" role="alert">
          <span>{`Could not sign in: ${message}`}</span>
          <button type="button" class="btn btn-secondary" onClick={onRetry}>
            Retry
          </button>
        </div>
      )}
    </main>
  );
}

export function Session({ token, onSignOut, onAuthFailure }: SessionProps) {
  const client = useMemo(() => createGraphQLClient('/graphql', token), [token]);
  const endSession = useCallback((message: string) => onAuthFailure(token, message), [token, onAuthFailure]);
  const failed = useAuthFailure(endSession);
  const viewer = useViewer(client, failed);
  const address = useAgentAddress();
  const own = viewer.status === 'ready' && viewer.kind === 'OPERATOR' ? viewer.agent : null;

  // An operator token shows its own agent: an address naming another one would mislead whoever reads it.
  useEffect(() => {
    if (own && address.agentId && address.agentId !== own.id) address.choose(null, 'replace');
  }, [own?.id, address.agentId]);

  if (viewer.status !== 'ready') {
    return (
      <Shell onSignOut={onSignOut}>
        <SessionPending message={viewer.status === 'error' ? viewer.message : null} onRetry={viewer.retry} />
      </Shell>
    );
  }
  const agent = own ?? viewer.agents.find((candidate) => candidate.id === address.agentId);
  if (!agent) {
    return (
      <Shell onSignOut={onSignOut}>
        <AgentPicker
          agents={viewer.agents}
          unknownId={address.agentId}
          onChoose={address.choose}
          client={client}
          failed={failed}
        />
      </Shell>
    );
  }
  const who = { agent, agents: own ? null : viewer.agents, onChoose: address.choose };
  // Keyed by agent: another agent starts from a clean page (its own types, filters and subscription).
  return (
    <MemoriesPage
      key={agent.id}
      token={token}
      client={client}
      failed={failed}
      who={who}
      onSignOut={onSignOut}
    />
  );
}

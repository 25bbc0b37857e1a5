// The agent named in the address bar, kept in step with Back and Forward (agent-url.ts).
import { useCallback, useEffect, useState } from 'preact/hooks';
import { addressWithAgent, agentFromSearch } from '../agent-url.js';

export interface AgentAddress {
  agentId: string | null;
  /** Names another agent (or none): a new history entry, or the current one replaced. */
  choose: (agentId: string | null, history?: 'push' | 'replace') => void;
}

export function useAgentAddress(): AgentAddress {
  const [agentId, setAgentId] = useState(() => agentFromSearch(window.location.search));
  useEffect(() => {
    const follow = () => setAgentId(agentFromSearch(window.location.search));
    window.addEventListener('popstate', follow);
    return () => window.removeEventListener('popstate', follow);
  }, []);
  const choose = useCallback((next: string | null, history: 'push' | 'replace' = 'push') => {
    const { pathname, search } = window.location;
    const address = addressWithAgent(pathname, search, next);
    if (address !== pathname + search) {
      if (history === 'push') window.history.pushState(null, '', address);
      else window.history.replaceState(window.history.state, '', address);
    }
    setAgentId(next);
  }, []);
  return { agentId, choose };
}

// The agent named in the address bar, kept in step with Back and Forward (agent-url.ts); the page's
// route in the fragment survives a switch (route.ts).
import { useCallback, useEffect, useState } from 'preact/hooks';
import { addressWithAgent, agentFromSearch } from '../agent-url.js';
import { isRouteHash, parseRoute, routeAfterAgentSwitch, routeHash } from '../route.js';

/** The tab stays open for the next agent (route.ts); a record of the previous one does not. */
function hashAfterAgentSwitch(hash: string): string {
  return isRouteHash(hash) ? routeHash(routeAfterAgentSwitch(parseRoute(hash))) : '';
}

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
    const { pathname, search, hash } = window.location;
    const address = addressWithAgent(pathname, search, next) + hashAfterAgentSwitch(hash);
    if (address !== pathname + search + hash) {
      if (history === 'push') window.history.pushState(null, '', address);
      else window.history.replaceState(window.history.state, '', address);
    }
    setAgentId(next);
  }, []);
  return { agentId, choose };
}

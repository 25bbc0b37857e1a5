// The agent an admin browses is part of the address (`/?agent=<id>`), so a view can be shared and survives
// a reload. Operator tokens imply their agent and leave the address without it.

const PARAM = 'agent';

/** The agent named by the address's query string, or null. */
export function agentFromSearch(search: string): string | null {
  const id = new URLSearchParams(search).get(PARAM)?.trim();
  return id ? id : null;
}

/** The page's path and query with `agent` set, or removed for null; other parameters are kept. */
export function addressWithAgent(pathname: string, search: string, agentId: string | null): string {
  const params = new URLSearchParams(search);
  if (agentId) params.set(PARAM, agentId);
  else params.delete(PARAM);
  const query = params.toString();
  return query ? `${pathname}?${query}` : pathname;
}

// Who an MCP caller is (its audience), and so which tools exist for it (api-contract, MCP).
import type { ServiceExecutor } from './executor.js';
import type { Audience, Tool } from './tool.js';
import { TOOLS } from './tools.js';

/** The tools one caller may see and call (api-contract, MCP); everything else does not exist for it. */
export function toolsFor(audience: Audience | null): Tool[] {
  return audience ? TOOLS.filter((tool) => tool.audience.includes(audience)) : [];
}

/** Who the token is, asked once per MCP request (HTTP) or session (stdio) through `viewer`. */
export async function audienceOf(service: ServiceExecutor): Promise<Audience | null> {
  const { viewer } = await service.graphql<{ viewer: { kind: string; run: { kind: Audience } | null } }>(
    '{ viewer { kind run { kind } } }',
  );
  if (viewer.kind === 'OPERATOR') return 'OPERATOR';
  if (viewer.kind === 'RUN' && viewer.run) return viewer.run.kind;
  // The admin token (the scheduler) acts for no agent; its operations are GraphQL's admin fields.
  return null;
}

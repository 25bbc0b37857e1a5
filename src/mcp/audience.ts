// Who an MCP caller is, for tool visibility (moved out of tools.ts to keep it under 300 lines).
import type { ServiceExecutor } from './executor.js';
import type { Audience } from './tools.js';

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

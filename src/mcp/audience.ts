// Who an MCP caller is (its role), and so which tools exist for it: those whose capability the access
// table gives its role (auth/access-table.ts); the admin token sees none (MCP_ROLES).
import { MCP_ROLES, may, type Role } from '../auth/access-table.js';
import type { ServiceExecutor } from './executor.js';
import type { Tool } from './tool.js';
import { TOOLS } from './tools.js';

/** The tools one caller may see and call (api-contract, MCP); everything else does not exist for it. */
export function toolsFor(role: Role | null): Tool[] {
  if (role === null || !MCP_ROLES.includes(role)) return [];
  return TOOLS.filter((tool) => may(role, tool.needs));
}

/** Who the token is, asked once per MCP request (HTTP) or session (stdio) through `viewer`. */
export async function audienceOf(service: ServiceExecutor): Promise<Role | null> {
  const { viewer } = await service.graphql<{
    viewer: { kind: 'ADMIN' | 'OPERATOR' | 'RUN'; run: { kind: Role } | null };
  }>('{ viewer { kind run { kind } } }');
  if (viewer.kind === 'ADMIN') return 'admin';
  if (viewer.kind === 'OPERATOR') return 'operator';
  return viewer.run?.kind ?? null;
}

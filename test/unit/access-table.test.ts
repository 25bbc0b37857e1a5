// S1, §1 Callers: the access table states what the spec says of each caller — the matrix
// (isolation-matrix.test.ts) proves every transport answers by it.
import { describe, expect, it } from 'vitest';
import { ACCESS_TABLE, CAPABILITIES, MCP_ROLES, may, ROLES } from '../../src/auth/access-table.js';
import { toolsFor } from '../../src/mcp/audience.js';

const holders = (capability: keyof typeof ACCESS_TABLE) => ROLES.filter((role) => may(role, capability));

describe('S1: the access table', () => {
  it('S1: the scheduler’s operations are the admin token’s alone; the writers are the runs (W1)', () => {
    expect(holders('administer')).toEqual(['admin']);
    expect(holders('write')).toEqual(['ANALYSIS', 'TRADING', 'REVIEW']);
  });

  it('S1: a Trading run reads only the trading context and records by id, never a list (§1)', () => {
    const trading = CAPABILITIES.filter((capability) => may('TRADING', capability));
    expect(trading).toEqual(['identify', 'instruments', 'record', 'context', 'write']);
  });

  it('S1: run tokens may not subscribe (L1); the desk is operators, Review runs and the admin (B7, T3)', () => {
    expect(holders('subscribe')).toEqual(['admin', 'operator']);
    expect(holders('desk')).toEqual(['admin', 'operator', 'REVIEW']);
    expect(holders('audit')).toEqual(['admin', 'operator', 'REVIEW']);
  });

  it('S1: no token, no capability; the admin token sees no MCP tool, every other role those it may use', () => {
    for (const capability of CAPABILITIES) expect(may(null, capability)).toBe(false);
    expect(MCP_ROLES).not.toContain('admin');
    expect(toolsFor('admin')).toEqual([]);
    expect(toolsFor(null)).toEqual([]);
    for (const role of MCP_ROLES) {
      for (const tool of toolsFor(role)) expect(may(role, tool.needs), `${role} ${tool.name}`).toBe(true);
    }
    expect(toolsFor('TRADING').map((tool) => tool.name)).not.toContain('list_memories');
  });
});

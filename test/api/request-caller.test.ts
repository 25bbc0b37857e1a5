// S14, W9: one caller resolution per request, whatever the transport — an MCP request's tool calls
// run as the caller its request resolved; a remembered token's liveness is read at most once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgentFixture, startHarness, type AgentFixture, type Harness } from '../support/harness.js';
import { mcpRequest } from '../support/mcp.js';
import { StatementRecorder } from '../support/statement-recorder.js';

const recorder = new StatementRecorder();
let h: Harness;
let fx: AgentFixture;

beforeAll(async () => {
  h = await startHarness({ recorder, sessionCheckMs: 3_600_000 });
  fx = await createAgentFixture(h, { instruments: ['BTC', 'ETH'] });
});
afterAll(async () => {
  await h.close();
});

/** The statements that read a token: its identity (by hash) or its liveness (a remembered one). */
const tokenReads = (statements: string[]) =>
  statements.filter((statement) => /tokenHash|SELECT revokedAt FROM OperatorToken/.test(statement));

describe('S14: one caller resolution per request', () => {
  it('S14: an MCP tools/call reads its token once, however many operations its tool runs', async () => {
    const call = (name: string, args: Record<string, unknown>) =>
      h.fetch(
        '/mcp',
        mcpRequest(fx.operatorToken, { method: 'tools/call', params: { name, arguments: args } }),
      );
    // get_trading_context asks `viewer` (which tools exist) and then runs tradingContext.
    const trips = await recorder.during(async () => {
      const response = await call('get_trading_context', { instrument: 'ETH' });
      expect(response.status).toBe(200);
      expect(JSON.stringify(await response.json())).not.toContain('isError":true');
    });
    expect(tokenReads(trips.statements)).toEqual([
      'sql: SELECT id, agentId, revokedAt FROM OperatorToken o WHERE o.agentId = $ AND tokenHash = $',
    ]);
  });

  it('S14: a remembered token’s liveness is read once for a document with several fields that need it', async () => {
    await h.ok('{ memoryTypes { type } }', {}, fx.operatorToken); // its identity is read and remembered
    const trips = await recorder.during(() =>
      h.ok('{ viewer { kind } agents { id } instruments { id } }', {}, fx.operatorToken),
    );
    expect(tokenReads(trips.statements)).toEqual([
      'sql: SELECT revokedAt FROM OperatorToken WHERE agentId = $ AND id = $',
    ]);
  });
});

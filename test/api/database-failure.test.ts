// W5: a database that stops answering mid-service gives generic errors that leak nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import {
  CREATE_MEMORY,
  createAgentFixture,
  startHarness,
  startRun,
  type Harness,
} from '../support/harness.js';
import { mcpRequest } from '../support/mcp.js';

let h: Harness;
let token: string;
let wsUrl: string;
let openSocket: Client;

const socket = (closed: (event: { code: number; reason: string }) => void = () => {}) =>
  createClient({
    url: wsUrl,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${token}` },
    retryAttempts: 0,
    lazy: false,
    on: { closed: (event) => closed(event as { code: number; reason: string }) },
  });

beforeAll(async () => {
  h = await startHarness();
  const address = await h.server.listen(0, '127.0.0.1');
  wsUrl = `ws://127.0.0.1:${address.port}/graphql`;
  const fx = await createAgentFixture(h, { instruments: ['ETH'] });
  token = (await startRun(h, fx.producers.adhoc!.id)).token;
  openSocket = socket();
  await new Promise<void>((resolve) => openSocket.on('connected', () => resolve()));
  await h.db.close(); // the database becomes unreachable
});
afterAll(async () => {
  await openSocket.dispose();
  await h.server.close();
});

const leaks = ['select', 'insert', 'prisma', 'pglite', 'pool', 'stack', '    at '];

describe('database unreachable (W5)', () => {
  it('W5: GraphQL answers a masked internal error', async () => {
    const response = await h.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({
        query: CREATE_MEMORY,
        variables: { input: { type: 'x', scope: 'AGENT', content: 'c' } },
      }),
    });
    const text = await response.text();
    expect(text).toContain('Unexpected error.');
    for (const leak of leaks) expect(text.toLowerCase()).not.toContain(leak);
  });

  it('W5: the REST mirror answers 500 {"error":"internal error","code":"internal_error"}', async () => {
    const response = await h.fetch('/api/v1/memories', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ type: 'x', scope: 'AGENT', content: 'c' }),
    });
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: 'internal error', code: 'internal_error' });
  });

  it('W5: /mcp answers HTTP 500 with the generic error (MCP: internal errors keep the GraphQL code)', async () => {
    const response = await h.fetch('/mcp', mcpRequest(token, { method: 'tools/list' }));
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text)).toMatchObject({ errors: [{ extensions: { code: 'INTERNAL_SERVER_ERROR' } }] });
    for (const leak of leaks) expect(text.toLowerCase()).not.toContain(leak);
  });

  it('W5: an operation on an open WebSocket answers the generic error; a new socket is closed without a reason that leaks', async () => {
    const errors = await new Promise<unknown>((resolve) =>
      openSocket.subscribe(
        { query: CREATE_MEMORY, variables: { input: { type: 'x', scope: 'AGENT', content: 'c' } } },
        { next: () => {}, error: resolve, complete: () => resolve(null) },
      ),
    );
    const text = JSON.stringify(errors);
    expect(text).toContain('Unexpected error.');
    for (const leak of leaks) expect(text.toLowerCase()).not.toContain(leak);
    const closed = await new Promise<{ code: number; reason: string }>((resolve) => socket(resolve));
    expect(closed).toMatchObject({ code: 4500, reason: 'Internal server error' });
  });

  it('/readyz answers 503 while /healthz still answers 200', async () => {
    expect((await h.fetch('/readyz')).status).toBe(503);
    expect((await h.fetch('/healthz')).status).toBe(200);
  });
});

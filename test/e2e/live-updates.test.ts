import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCursor } from '../../src/domain/cursor.js';

import {
  createAgentFixture,
  startHarness,
  startRun,
  writeOk,
  type AgentFixture,
  type Harness,
} from '../support/harness.js';
import { subscribeSse, subscribeWs, wsClient } from '../support/live.js';
import { waitUntil } from '../support/write-ledger.js';
import { CloseCode } from '../../src/transport/ws/close-codes.js';

let h: Harness;
let base: string;
let fx: AgentFixture;
let run: { runId: string; token: string };

beforeAll(async () => {
  h = await startHarness({ maxConnectionsPerToken: 3 });
  const address = await h.server.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${address.port}`;
  fx = await createAgentFixture(h, { instruments: ['BTC', 'ETH'] });
  run = await startRun(h, fx.producers.adhoc!.id);
});
afterAll(async () => {
  await h.close();
});

const write = (type: string, content: string) => writeOk(h, run.token, { type, scope: 'AGENT', content });
const settle = () => new Promise((resolve) => setTimeout(resolve, 150));

/** The newest record's cursor: subscribing after it makes delivery independent of subscription timing (L2). */
async function latestCursor(): Promise<string> {
  const page = await h.ok<{ memories: { edges: { cursor: string }[] } }>(
    'query($a: UUID!) { memories(agentId: $a, first: 1) { edges { cursor } } }',
    { a: fx.agentId },
  );
  return (
    page.memories.edges[0]?.cursor ??
    encodeCursor({ createdAt: new Date(0), id: '00000000-0000-4000-8000-000000000000' })
  );
}

describe('memoryAdded over graphql-ws (L1)', () => {
  it('L1: delivers only records of the selected types, once each, as MemoryEdges with list cursors', async () => {
    const client = wsClient(base, fx.operatorToken);
    const sub = subscribeWs(client, { filter: { types: ['ema_handoff'] }, after: await latestCursor() });
    await settle();
    await write('funding_basis', 'not wanted');
    const wanted = await write('ema_handoff', 'wanted');
    const [edge] = await sub.waitFor(1);
    await write('macro_note', 'not wanted either');
    await settle();
    expect(sub.edges).toHaveLength(1);
    expect(edge!.node).toMatchObject({ id: wanted.id, type: 'ema_handoff', content: 'wanted' });
    const page = await h.ok<{ memories: { edges: { cursor: string }[] } }>(
      'query($a: UUID!) { memories(agentId: $a, first: 1, filter: { types: ["ema_handoff"] }) { edges { cursor } } }',
      { a: fx.agentId },
    );
    expect(page.memories.edges[0]!.cursor.startsWith(edge!.cursor)).toBe(true); // same position format
    await sub.stop();
    await client.dispose();
  });

  it('L1/B3: a record outside a custom local-date range is not delivered', async () => {
    const client = wsClient(base, fx.operatorToken);
    const sub = subscribeWs(client, {
      filter: { window: { fromDate: '2026-03-08', toDate: '2026-03-08', timeZone: 'America/New_York' } },
      // A position before the range: whether a record arrives by replay or live, only the filter decides.
      after: encodeCursor({
        createdAt: new Date('2026-03-01T00:00:00Z'),
        id: '00000000-0000-4000-8000-000000000000',
      }),
    });
    await settle();
    h.clock.set('2026-03-08T04:59:59Z'); // 23:59:59 on 03-07 in New York
    await write('note', 'before the local day');
    h.clock.set('2026-03-08T05:00:00Z'); // local midnight
    const inside = await write('note', 'inside');
    h.clock.set('2026-03-09T04:00:00Z'); // next local midnight (EDT): the 23-hour day has ended
    await write('note', 'after the local day');
    h.clock.real();
    await sub.waitFor(1);
    await settle();
    expect(sub.edges.map((e) => e.node.id)).toEqual([inside.id]);
    await sub.stop();
    await client.dispose();
  });

  it('L2: resuming with the last cursor replays every missed record in order, then continues live, without duplicates', async () => {
    const types = ['resume_test'];
    const client = wsClient(base, fx.operatorToken);
    const first = subscribeWs(client, { filter: { types }, after: await latestCursor() });
    await settle();
    const before = [];
    for (let i = 0; i < 3; i++) before.push(await write('resume_test', `before ${i}`));
    await first.waitFor(3);
    const lastCursor = first.edges[2]!.cursor;
    await first.stop();
    await client.dispose();

    // Writes continue while the client is away and while it resubscribes.
    const missed = [];
    for (let i = 0; i < 25; i++) missed.push(await write('resume_test', `missed ${i}`));
    const client2 = wsClient(base, fx.operatorToken);
    const resumed = subscribeWs(client2, { filter: { types }, after: lastCursor });
    const during = [];
    for (let i = 0; i < 10; i++) during.push(await write('resume_test', `during ${i}`));
    const expected = [...missed, ...during].map((m) => m.id);
    await resumed.waitFor(expected.length);
    await settle();
    expect(resumed.edges.map((e) => e.node.id)).toEqual(expected);
    await resumed.stop();
    await client2.dispose();
    expect(before).toHaveLength(3);
  });

  it('refuses run tokens and foreign agents (FORBIDDEN)', async () => {
    const other = await createAgentFixture(h, { instruments: ['BTC'] });
    const cases: [string | null, Record<string, unknown>, string][] = [
      [run.token, {}, 'FORBIDDEN'],
      [other.operatorToken, { agentId: fx.agentId }, 'FORBIDDEN'],
    ];
    for (const [token, variables, code] of cases) {
      const client = wsClient(base, token);
      const sub = subscribeWs(client, variables);
      await sub.closed;
      expect(JSON.stringify(sub.errors)).toContain(code);
      await client.dispose();
    }
  });

  it('limits concurrent connections per token (close code 4029)', async () => {
    const codes: number[] = [];
    const clients = Array.from({ length: 4 }, () =>
      wsClient(base, fx.operatorToken, { onClose: (code) => codes.push(code) }),
    );
    const subs = clients.map((client) => subscribeWs(client, { filter: { types: ['limit_test'] } }));
    await settle();
    await settle();
    expect(codes).toContain(CloseCode.TooManyConnections);
    for (const sub of subs) await sub.stop();
    for (const client of clients) await client.dispose();
    // S11: the token's SSE streams share these places; the next tests need them back.
    await waitUntil('the sockets to be released', async () =>
      /^memory_connections_open\{transport="ws"\} 0$/m.test(await (await h.fetch('/metrics')).text()),
    );
  });
});

describe('memoryAdded over Server-Sent Events (L1)', () => {
  it('L1: an SSE client over fetch receives matching records', async () => {
    const sub = subscribeSse(base, fx.operatorToken, {
      filter: { types: ['sse_test'] },
      after: await latestCursor(),
    });
    await settle();
    await write('other', 'no');
    const wanted = await write('sse_test', 'yes');
    await sub.waitFor(1);
    expect(sub.edges[0]!.node.id).toBe(wanted.id);
    await sub.stop();
  });

  it('L1: an SSE client without a token is refused with UNAUTHENTICATED', async () => {
    const response = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'subscription { memoryAdded { cursor } }' }),
    });
    expect(await response.text()).toContain('UNAUTHENTICATED');
  });
});

describe('shutdown', () => {
  it('closing the server closes open WebSockets with 1001 (going away)', async () => {
    const own = await startHarness();
    const address = await own.server.listen(0, '127.0.0.1');
    const agent = await createAgentFixture(own, { instruments: ['ETH'] });
    const codes: number[] = [];
    const client = wsClient(`http://127.0.0.1:${address.port}`, agent.operatorToken, {
      onClose: (code) => codes.push(code),
    });
    const sub = subscribeWs(client, {});
    await settle();
    await settle();
    await own.close();
    await sub.closed.catch(() => undefined);
    for (let i = 0; i < 20 && codes.length === 0; i++) await settle();
    expect(codes).toContain(1001);
    await client.dispose();
  });
});

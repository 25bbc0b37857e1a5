// Attack: what a subscription leaves behind and how it is stopped. Revoking an operator token ends
// its WebSocket and SSE deliveries at once (S6, L4); a socket that stops reading is cut off with
// 4008 (L4); once every subscriber has gone (complete, socket close, SSE abort, revocation), no
// fan-out group, agent feed or event listener is left.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Socket } from 'node:net';
import { createMemoryEvents, type MemoryEvents } from '../../src/live/events.js';

import {
  ADMIN_TOKEN,
  createAgentFixture,
  startHarness,
  startRun,
  writeOk,
  type AgentFixture,
  type Harness,
} from '../support/harness.js';
import { subscribeSse, openSubscriptions } from '../support/live.js';
import { countingListeners, RawSocket } from '../support/raw-ws.js';
import { CloseCode } from '../../src/transport/ws/close-codes.js';

const QUERY = `subscription($a: UUID, $after: String) { memoryAdded(agentId: $a, after: $after) { cursor node { id content } } }`;

let h: Harness;
let base: string;
let events: MemoryEvents;
let listeners: () => number;
let fx: AgentFixture & { run: string };

beforeAll(async () => {
  const counting = countingListeners(createMemoryEvents());
  events = counting.events;
  listeners = counting.open;
  h = await startHarness({ events, maxConnectionsPerToken: 50 });
  const address = await h.server.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${address.port}`;
  const agent = await createAgentFixture(h, { instruments: ['BTC'] });
  fx = { ...agent, run: (await startRun(h, agent.producers.adhoc!.id)).token };
  await write('baseline');
});
afterAll(async () => {
  vi.restoreAllMocks();
  await h.close();
});

const write = (content: string) => writeOk(h, fx.run, { type: 'note', scope: 'AGENT', content });

async function newestCursor(): Promise<string> {
  const page = await h.ok<{ memories: { edges: { cursor: string }[] } }>(
    '{ memories(first: 1) { edges { cursor } } }',
    {},
    fx.operatorToken,
  );
  return page.memories.edges[0]!.cursor;
}

/** Polls (at most 3 s) until nothing of a subscription is left; returns what is left. */
async function leftovers() {
  const read = async () => ({
    subscriptions: await openSubscriptions(h.fetch),
    groups: h.server.fanout.groupCount,
    feeds: h.server.feeds.size,
    listeners: listeners(),
  });
  let left = await read();
  for (let tries = 0; tries < 60 && Object.values(left).some((n) => n > 0); tries++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    left = await read();
  }
  return left;
}

async function operatorToken(): Promise<{ id: string; token: string }> {
  const { createOperatorToken } = await h.ok<{
    createOperatorToken: { token: string; operatorToken: { id: string } };
  }>('mutation($a: UUID!) { createOperatorToken(agentId: $a) { token operatorToken { id } } }', {
    a: fx.agentId,
  });
  return { id: createOperatorToken.operatorToken.id, token: createOperatorToken.token };
}

const nothingLeft = { subscriptions: 0, groups: 0, feeds: 0, listeners: 0 };

describe('revocation and slow consumers (S6, L4)', () => {
  it('S6, L4: revokeOperatorToken ends WebSocket and SSE deliveries before it answers; nothing is left', async () => {
    const revoked = await operatorToken();
    const after = await newestCursor();
    const socket = await RawSocket.open(base, revoked.token);
    socket.subscribe('1', QUERY, { after });
    const sse = subscribeSse(base, revoked.token, { after });
    const before = await write('before the revocation');
    await socket.until(() => socket.nodeIds('1').includes(before.id), 'the WebSocket record');
    await sse.waitFor(1);

    await h.ok('mutation($id: UUID!) { revokeOperatorToken(id: $id) { id } }', { id: revoked.id });
    await write('after the revocation');
    await socket.until(() => socket.closeCode !== null, 'the close');
    await sse.closed;

    expect(socket.closeCode).toBe(CloseCode.Forbidden);
    expect(socket.nodeIds('1')).toEqual([before.id]);
    expect(sse.edges.map((edge) => edge.node.id)).toEqual([before.id]);
    expect(JSON.stringify(sse.errors)).toContain('"code":"');
    expect(await leftovers()).toEqual(nothingLeft);
  });

  it('L4: a socket that stops reading is closed with 4008 instead of buffering everything', async () => {
    const socket = await RawSocket.open(base, fx.operatorToken);
    const after = await newestCursor();
    const subscriptions = 20;
    for (let i = 0; i < subscriptions; i++) socket.subscribe(`s${i}`, QUERY, { after });
    const probe = await write('probe');
    // Each id replays from `after` and then goes live on its own: they need not see the probe in order.
    const ids = Array.from({ length: subscriptions }, (_, i) => `s${i}`);
    await socket.until(() => ids.every((id) => socket.nexts(id).length >= 1), 'the probe on every id');
    expect(socket.nodeIds('s0')).toEqual([probe.id]);

    const tcp = (socket.socket as unknown as { _socket: Socket })._socket;
    tcp.pause(); // the client stops reading; each record is ~1.3 MB on this socket (20 × 64 KiB)
    const records = 24;
    for (let i = 0; i < records; i++) await write(`${i}`.padEnd(65_536, 'x'));
    tcp.resume();
    await socket.until(() => socket.closeCode !== null, 'the close', 20_000);

    expect(socket.closeCode).toBe(CloseCode.SlowConsumer);
    expect(socket.nexts('s0').length).toBeLessThan(1 + records);
    expect(await leftovers()).toEqual(nothingLeft);
  });
});

describe('teardown (L1)', () => {
  it('L1: after complete, socket close, SSE abort and a resumed subscriber leaving, no group, feed or listener is left', async () => {
    // (A resubscription under the SAME id in one burst is the subject of live-subscription-ids.test.ts.)
    const after = await newestCursor();
    const a = await RawSocket.open(base, fx.operatorToken);
    const admin = await RawSocket.open(base, ADMIN_TOKEN);
    a.subscribe('1', QUERY, { after });
    a.subscribe('2', QUERY.replace('content', 'content type'), { after });
    admin.subscribe('3', QUERY, { a: fx.agentId, after });
    const sse = subscribeSse(base, fx.operatorToken, { after });
    const record = await write('seen by all');
    await a.until(() => a.nexts('1').length + a.nexts('2').length === 2, 'both subscriptions');
    await admin.until(() => admin.nexts('3').length === 1, 'the admin subscription');
    await sse.waitFor(1);
    expect(sse.edges[0]!.node.id).toBe(record.id);

    a.complete('1');
    await a.close();
    await sse.stop();
    admin.complete('3');
    admin.subscribe('4', QUERY, { a: fx.agentId, after }); // resumed from the same cursor
    await admin.until(() => admin.nexts('4').length === 1, 'the replay');
    expect(admin.nodeIds('4')).toEqual([record.id]);
    await admin.close();
    expect(await leftovers()).toEqual(nothingLeft);
  });
});

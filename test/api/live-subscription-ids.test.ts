// graphql-ws subscription ids reused on one socket. graphql-ws forgets an id as soon as the client
// completes it, while the operation may still be setting up or ending; an operation under a reused
// id would then share graphql-ws' bookkeeping with the old one (a stray `complete`, a subscription
// nothing can stop, the 50-per-socket limit bypassed). The service refuses an id while an
// operation under it is still in flight (close 4409, as graphql-ws does for an id it knows), and
// ends every subscription with its socket.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SUBSCRIPTIONS_PER_SOCKET } from '../../src/transport/ws/socket-operations.js';
import { createMemoryEvents } from '../../src/live/events.js';
import {
  ADMIN_TOKEN,
  createAgentFixture,
  startHarness,
  startRun,
  writeOk,
  type AgentFixture,
  type Harness,
} from '../support/harness.js';
import { countingListeners, RawSocket } from '../support/raw-ws.js';
import { openSubscriptions, settleOpenSubscriptions } from '../support/live.js';
import { CloseCode } from '../../src/transport/ws/close-codes.js';

const QUERY = `subscription($agentId: UUID, $filter: MemoryFilter, $after: String) {
  memoryAdded(agentId: $agentId, filter: $filter, after: $after) { cursor node { id agentId type } }
}`;

let h: Harness;
let base: string;
let listeners: () => number;
let x: AgentFixture & { run: string };
let y: AgentFixture & { run: string };

async function agent(): Promise<AgentFixture & { run: string }> {
  const fx = await createAgentFixture(h, { instruments: ['BTC'] });
  return { ...fx, run: (await startRun(h, fx.producers.adhoc!.id)).token };
}

beforeAll(async () => {
  const counting = countingListeners(createMemoryEvents());
  listeners = counting.open;
  h = await startHarness({ events: counting.events, maxConnectionsPerToken: 5 });
  const address = await h.server.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${address.port}`;
  x = await agent();
  y = await agent();
});
afterAll(async () => {
  await h.close();
});

const write = (fx: { run: string }, type: string) =>
  writeOk(h, fx.run, { type, scope: 'AGENT', content: type });

describe('subscription ids reused on one socket (L1, L4)', () => {
  it('L1, L4: complete + subscribe with the same id during set-up closes the socket with 4409; nothing is delivered under the id and nothing is left running', async () => {
    const before = await openSubscriptions(h.fetch);
    const socket = await RawSocket.open(base, ADMIN_TOKEN);
    // One burst: the first operation is still resolving its caller when the other two arrive.
    socket.subscribe('s', QUERY, { agentId: x.agentId });
    socket.complete('s');
    socket.subscribe('s', QUERY, { agentId: y.agentId });
    await socket.until(() => socket.closeCode !== null, 'the close');
    expect(socket.closeCode).toBe(CloseCode.SubscriberAlreadyExists);
    await write(x, 'for_x');
    await write(y, 'for_y');
    expect(socket.nodeIds('s')).toEqual([]);
    expect(await settleOpenSubscriptions(h.fetch, before, 3_000)).toBe(before);
    expect(listeners()).toBe(0);
  });

  it(`L4: at most ${MAX_SUBSCRIPTIONS_PER_SOCKET} subscriptions run on one socket, however the client reuses ids`, async () => {
    const before = await openSubscriptions(h.fetch);
    const socket = await RawSocket.open(base, x.operatorToken);
    for (let i = 0; i < MAX_SUBSCRIPTIONS_PER_SOCKET + 10; i++) {
      socket.subscribe('same', QUERY);
      socket.complete('same');
    }
    socket.subscribe('same', QUERY);
    await socket.until(() => socket.closeCode !== null, 'the close');
    expect(socket.closeCode).toBe(CloseCode.SubscriberAlreadyExists);
    expect(await settleOpenSubscriptions(h.fetch, before, 3_000)).toBe(before);
    expect(listeners()).toBe(0);
  });

  it('L1, L4: an id used again only after its subscription ended works; a reuse while it is ending closes with 4409 and sends no stray complete', async () => {
    const before = await openSubscriptions(h.fetch);
    const socket = await RawSocket.open(base, ADMIN_TOKEN);
    const typed = (type: string) => ({ agentId: x.agentId, filter: { types: [type] } });
    socket.subscribe('r', QUERY, typed('old'));
    expect(await settleOpenSubscriptions(h.fetch, before + 1, 3_000)).toBe(before + 1);
    const old = await write(x, 'old');
    await socket.until(() => socket.nodeIds('r').includes(old.id), 'the old subscription’s record');
    // Completed and ended on the server: the id is free again.
    socket.complete('r');
    expect(await settleOpenSubscriptions(h.fetch, before, 3_000)).toBe(before);
    socket.subscribe('r', QUERY, typed('new'));
    expect(await settleOpenSubscriptions(h.fetch, before + 1, 3_000)).toBe(before + 1);
    const fresh = await write(x, 'new');
    await socket.until(() => socket.nodeIds('r').includes(fresh.id), 'the new record');
    expect(socket.messages.filter((m) => m.id === 'r').map((m) => m.type)).toEqual(['next', 'next']);
    // complete + subscribe in one burst while the subscription is running: refused, never mixed up.
    socket.complete('r');
    socket.subscribe('r', QUERY, typed('new'));
    await socket.until(() => socket.closeCode !== null, 'the close');
    expect(socket.closeCode).toBe(CloseCode.SubscriberAlreadyExists);
    expect(socket.messages.filter((m) => m.id === 'r').map((m) => m.type)).toEqual(['next', 'next']);
    expect(await settleOpenSubscriptions(h.fetch, before, 3_000)).toBe(before);
    expect(listeners()).toBe(0);
  });
});

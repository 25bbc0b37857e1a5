// Attack: graphql-ws subscription ids. A client may `complete` an id and `subscribe` with it again.
// When both arrive while the first operation is still being set up (caller, parse, resume point),
// graphql-ws lets both operations go live under the one id and forgets the older one: it keeps
// writing under the reused id, counts nowhere against the 50-per-socket limit (L4), and outlives
// its socket (its feed membership, group membership and listener are never released). When the
// first one was already running, the teardown of the old operation forgets the new one instead.
//
// EXPECTED TO FAIL on 54b7ed7: these tests demonstrate the bug (see the report of branch `attack`).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SUBSCRIPTIONS_PER_SOCKET } from '../../src/realtime/ws-server.js';
import { createMemoryEvents } from '../../src/realtime/events.js';
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

async function openSubscriptions(): Promise<number> {
  const text = await (await h.fetch('/metrics')).text();
  return Number(/^memory_subscriptions_open (\d+)$/m.exec(text)?.[1]);
}

/** Polls (at most 3 s) until the gauge of open subscriptions is `count`; returns what it last read. */
async function settleOpenSubscriptions(count: number): Promise<number> {
  let open = await openSubscriptions();
  for (let tries = 0; tries < 60 && open !== count; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    open = await openSubscriptions();
  }
  return open;
}

describe('subscription ids reused on one socket (L1, L4)', () => {
  it('L1, L4: complete + subscribe with the same id during set-up: only the second subscription delivers under that id, and closing the socket ends everything', async () => {
    const socket = await RawSocket.open(base, ADMIN_TOKEN);
    // One burst: the first operation is still resolving its caller when the other two arrive.
    socket.subscribe('s', QUERY, { agentId: x.agentId });
    socket.complete('s');
    socket.subscribe('s', QUERY, { agentId: y.agentId });
    await settleOpenSubscriptions(1);

    const ofY = await write(y, 'for_y');
    await socket.until(() => socket.nodeIds('s').includes(ofY.id), 'the record of agent y');
    const ofX = await write(x, 'for_x');
    const ofY2 = await write(y, 'for_y');
    await socket.until(() => socket.nodeIds('s').includes(ofY2.id), 'the second record of agent y');

    // Subscription `s` asked for agent y only: a record of agent x under `s` is mislabelled data.
    expect.soft(socket.nodeIds('s')).not.toContain(ofX.id);
    expect.soft(socket.nodeIds('s')).toEqual([ofY.id, ofY2.id]);

    // Closing the socket ends every subscription it opened: none is left in a feed or a group.
    await socket.close();
    expect.soft(await settleOpenSubscriptions(0)).toBe(0);
    expect.soft(listeners()).toBe(0);
  });

  it(`L4: at most ${MAX_SUBSCRIPTIONS_PER_SOCKET} subscriptions run on one socket, however the client reuses ids`, async () => {
    const before = await openSubscriptions(); // what an earlier test may have left behind
    const socket = await RawSocket.open(base, x.operatorToken);
    const rounds = MAX_SUBSCRIPTIONS_PER_SOCKET + 10;
    for (let i = 0; i < rounds; i++) {
      socket.subscribe('same', QUERY);
      socket.complete('same');
    }
    socket.subscribe('same', QUERY);
    // Each record reaches the socket once per subscription that is really running.
    await settleOpenSubscriptions(before + 1);
    const record = await write(x, 'count_me');
    await socket.until(() => socket.nodeIds('same').includes(record.id), 'the record');
    const probe = await write(x, 'probe');
    await socket.until(() => socket.nodeIds('same').includes(probe.id), 'the probe');

    expect.soft((await openSubscriptions()) - before).toBeLessThanOrEqual(MAX_SUBSCRIPTIONS_PER_SOCKET);
    expect.soft(socket.nodeIds('same').filter((id) => id === record.id)).toHaveLength(1);

    await socket.close();
    expect.soft(await settleOpenSubscriptions(before)).toBe(before);
  });

  it('L1, L4: complete + subscribe with the id of a running subscription (one burst): no stray complete, and the new one can be completed and ends with its socket', async () => {
    const before = await openSubscriptions();
    const socket = await RawSocket.open(base, ADMIN_TOKEN);
    const typed = (type: string) => ({ agentId: x.agentId, filter: { types: [type] } });
    socket.subscribe('r', QUERY, typed('old'));
    expect(await settleOpenSubscriptions(before + 1)).toBe(before + 1);
    const old = await write(x, 'old');
    await socket.until(() => socket.nodeIds('r').includes(old.id), 'the old subscription’s record');
    const after = socket.nexts('r')[0]!.payload!.data!.memoryAdded!.cursor;
    socket.complete('r');
    socket.subscribe('r', QUERY, { ...typed('new'), after }); // after: delivered whenever it joins
    const fresh = await write(x, 'new');
    // Depending on timing the new operation is dropped (this wait times out) or runs unreachable.
    await socket.until(() => socket.nodeIds('r').includes(fresh.id), 'the new record', 2000).catch(() => {});
    // The client completed the old operation itself: a server `complete` for `r` would end the new one.
    expect.soft(socket.messages.filter((m) => m.id === 'r').map((m) => m.type)).toEqual(['next', 'next']);
    expect.soft(socket.nodeIds('r')).toEqual([old.id, fresh.id]);
    socket.complete('r');
    expect.soft(await settleOpenSubscriptions(before)).toBe(before);
    await socket.close();
    expect(await settleOpenSubscriptions(before)).toBe(before);
  });
});

// D4 with L2 and L3: two real instances on one PostgreSQL fan out through a 3-master Redis Cluster
// of their own — each agent on one sharded channel, held by the node that owns its slot — and a
// node killed mid-stream is a gap the subscribers' catch-up closes: every record once, in order.
import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscribeWs, wsClient, type LiveSubscription } from '../support/live.js';
import { startOwnRedisCluster, type OwnRedisCluster } from '../support/own-redis-cluster.js';
import { agentOverHttp, gqlOverHttp, startInstancePair, type ServiceProcess } from '../support/processes.js';
import { waitUntil } from '../support/write-ledger.js';

const ADMIN = 'adm_redis_cluster_token_0123456789';
const RESYNC_CHANNEL = 'memory:resync';
/** Agents are created until every node serves one (their ids are random): at most this many. */
const MAX_AGENTS = 24;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface ClusterAgent {
  agentId: string;
  runToken: string;
  operatorToken: string;
  channel: string;
  /** The node serving the channel's slot. */
  node: number;
}

let cluster: OwnRedisCluster | undefined;
let instances: Awaited<ReturnType<typeof startInstancePair>> | undefined;
let a: ServiceProcess;
let b: ServiceProcess;
const agents: ClusterAgent[] = [];
const clients: Client[] = [];

beforeAll(async () => {
  cluster = await startOwnRedisCluster();
  instances = await startInstancePair(ADMIN, { REDIS_URL: '', REDIS_CLUSTER_NODES: cluster.nodes });
  ({ a, b } = instances);
  for (let i = 0; i < MAX_AGENTS && new Set(agents.map((agent) => agent.node)).size < 3; i++) {
    const fixture = await agentOverHttp(a.url, ADMIN, `cluster-${i}`);
    const channel = `memory:added:${fixture.agentId}`;
    agents.push({ ...fixture, channel, node: await cluster.ownerOf(channel) });
  }
}, 180_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.dispose()));
  await instances?.stop();
  await cluster?.remove();
}, 60_000);

async function write(agent: ClusterAgent, content: string): Promise<string> {
  const { createMemory } = await gqlOverHttp<{ createMemory: { memory: { id: string } } }>(
    a.url,
    agent.runToken,
    'mutation($c: String!) { createMemory(input: { type: "note", scope: AGENT, content: $c }) { ... on CreateMemorySuccess { memory { id } } } }',
    { c: content },
  );
  return createMemory.memory.id;
}

/** Per node, the sharded channels it holds subscribers for (PUBSUB SHARDCHANNELS), sorted. */
async function shardChannels(): Promise<string[][]> {
  return Promise.all(
    cluster!.ports.map(async (_, index) =>
      ((await cluster!.client(index).call('PUBSUB', 'SHARDCHANNELS', 'memory:*')) as string[]).sort(),
    ),
  );
}

/** Per node, the channels of the given agents its slots hold, sorted. */
const channelsByNode = (of: ClusterAgent[]) =>
  cluster!.ports.map((_, index) =>
    of
      .filter((agent) => agent.node === index)
      .map((agent) => agent.channel)
      .sort(),
  );

const idsOf = (subscription: LiveSubscription) => subscription.edges.map((edge) => edge.node.id);

/** A live subscription on B, and how many records it had got when the test's own writes began. */
interface Subscriber {
  subscription: LiveSubscription;
  from: number;
  /** What it got since `from`. */
  since(): string[];
}

/**
 * A live-only subscription on B per agent, once every channel is sharded on its node and each has
 * received a probe written through A (a live subscription starts at the commit position it joins at).
 */
async function subscribeOnB(): Promise<Map<ClusterAgent, Subscriber>> {
  const subscriptions = new Map<ClusterAgent, LiveSubscription>();
  for (const agent of agents) {
    const client = wsClient(b.url, agent.operatorToken);
    clients.push(client);
    subscriptions.set(agent, subscribeWs(client, {}));
  }
  const expected = JSON.stringify(channelsByNode(agents));
  await waitUntil(
    "every agent's channel sharded on its node",
    async () => JSON.stringify(await shardChannels()) === expected,
    15_000,
  );
  const subscribers = new Map<ClusterAgent, Subscriber>();
  for (const [agent, subscription] of subscriptions) {
    let probe = '';
    for (let attempt = 0; attempt < 25 && (!probe || idsOf(subscription).at(-1) !== probe); attempt++) {
      probe = await write(agent, `probe ${attempt}`);
      await subscription.waitFor(subscription.edges.length + 1, 400).catch(() => undefined);
    }
    expect(idsOf(subscription).at(-1)).toBe(probe);
    const from = subscription.edges.length;
    subscribers.set(agent, { subscription, from, since: () => idsOf(subscription).slice(from) });
  }
  return subscribers;
}

describe('sharded fan-out across a Redis Cluster (D4)', { timeout: 120_000 }, () => {
  it('D4: subscribers on B get the records written through A; each agent has one sharded channel, on the node owning its slot, while it has subscribers', async () => {
    expect(new Set(agents.map((agent) => agent.node)).size).toBe(3);
    const subscribers = await subscribeOnB();
    expect(await shardChannels()).toEqual(channelsByNode(agents));
    // Classic pub/sub carries the resync channel only: no agent's events are broadcast to every node.
    const classic = await Promise.all(
      cluster!.ports.map((_, index) => cluster!.client(index).call('PUBSUB', 'CHANNELS', '*')),
    );
    expect([...new Set((classic as string[][]).flat())]).toEqual([RESYNC_CHANNEL]);

    const written = new Map(agents.map((agent) => [agent, [] as string[]]));
    for (let round = 0; round < 3; round++)
      for (const agent of agents) written.get(agent)!.push(await write(agent, `round ${round}`));
    await waitUntil(
      'B got every record',
      async () => agents.every((agent) => subscribers.get(agent)!.since().length >= 3),
      10_000,
    ).catch(() => undefined); // the comparison below says what is missing
    for (const agent of agents) expect(subscribers.get(agent)!.since()).toEqual(written.get(agent));
    // Nothing failed on the way, so nothing came by a catch-up: the records travelled live.
    expect(a.output()).not.toMatch(/redis publish failed/);
    expect(b.output()).not.toMatch(/redis cluster node lost/);

    // The last subscriber of an agent gone, its channel leaves its node.
    await Promise.all([...subscribers.values()].map(({ subscription }) => subscription.stop()));
    await waitUntil(
      'no sharded channel left',
      async () => (await shardChannels()).every((channels) => channels.length === 0),
      10_000,
    );
  });

  it('D4, L2: a node killed mid-stream and started again: subscribers on B get every record exactly once, in order, through the catch-up', async () => {
    const victim = agents[0]!.node;
    const subscribers = await subscribeOnB();
    const written = new Map(agents.map((agent) => [agent, [] as string[]]));
    const state = { writing: true, victimWrites: true, killed: false, writtenWhileDown: 0 };
    const writer = (async () => {
      for (let turn = 0; state.writing && turn < 500; turn++) {
        for (const agent of agents) {
          if (!state.victimWrites && agent.node === victim) continue;
          written.get(agent)!.push(await write(agent, `turn ${turn}`));
          if (state.killed && agent.node === victim) state.writtenWhileDown++;
        }
        await sleep(20);
      }
    })();
    try {
      await waitUntil(
        'records before the kill',
        async () => agents.every((agent) => subscribers.get(agent)!.since().length >= 2),
        10_000,
      );
      await cluster!.kill(victim);
      state.killed = true;
      await sleep(3000); // writes go on; those of the victim's agents cannot reach B live
      // From here on nothing more for the victim's agents: only the catch-up can bring what they missed.
      state.victimWrites = false;
      await cluster!.restart(victim);
      await sleep(1000);
    } finally {
      state.writing = false;
      await writer;
    }
    expect(state.writtenWhileDown).toBeGreaterThan(0);

    await waitUntil(
      'every subscriber has every record of its agent',
      async () =>
        agents.every((agent) => subscribers.get(agent)!.since().length >= written.get(agent)!.length),
      30_000,
    ).catch(() => undefined); // the comparison below says what is missing
    for (const agent of agents) expect(subscribers.get(agent)!.since()).toEqual(written.get(agent));
    expect(b.output()).toMatch(/redis cluster node lost/);
    expect(b.output()).toMatch(/redis cluster subscriptions restored/);
    // Subscribed again where they belong: the victim's agents on the victim.
    expect(await shardChannels()).toEqual(channelsByNode(agents));
    await Promise.all([...subscribers.values()].map(({ subscription }) => subscription.stop()));
  });
});

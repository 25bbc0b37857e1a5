// D4 with L2: events over a Redis Cluster, against a stand-in for ioredis' Cluster client — one
// sharded channel per agent, subscribed one per call; a lost node makes every subscription be
// confirmed again (without piling up ioredis' channel list), and each confirmed one catches up.
import { EventEmitter } from 'node:events';
import type { Cluster } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/logger.js';
import type { MemoryEvents } from '../../src/live/events.js';
import { clusterWire, RESUBSCRIBE_MAX_MS } from '../../src/live/redis/cluster-wire.js';
import { createRedisMemoryEvents, RESYNC_RETRY_MS } from '../../src/live/redis/redis-events.js';
import { RESYNC_CHANNEL } from '../../src/live/redis/redis-wire.js';

const AWAY = () => Promise.reject(new Error('Connection is closed.'));

/** What the wire uses of ioredis' Cluster: commands are logged; channels in `away` are on a lost node. */
class FakeCluster extends EventEmitter {
  slots: string[][] = [];
  readonly commands: string[] = [];
  readonly away = new Set<string>();
  readonly subscribed = new Set<string>();
  readonly published: { command: string; channel: string; message: Record<string, unknown> }[] = [];
  failPublishes = false;

  ssubscribe(channel: string) {
    this.commands.push(`SSUBSCRIBE ${channel}`);
    if (this.away.has(channel)) return AWAY();
    this.subscribed.add(channel);
    return Promise.resolve(1);
  }
  sunsubscribe(channel: string) {
    this.commands.push(`SUNSUBSCRIBE ${channel}`);
    this.subscribed.delete(channel);
    return this.away.has(channel) ? AWAY() : Promise.resolve(0);
  }
  subscribe(channel: string) {
    this.commands.push(`SUBSCRIBE ${channel}`);
    return Promise.resolve(1);
  }
  spublish(channel: string, message: string) {
    return this.send('SPUBLISH', channel, message);
  }
  publish(channel: string, message: string) {
    return this.send('PUBLISH', channel, message);
  }
  disconnect() {}

  private send(command: string, channel: string, message: string) {
    if (this.failPublishes) return AWAY();
    this.published.push({ command, channel, message: JSON.parse(message) as Record<string, unknown> });
    return Promise.resolve(1);
  }
}

const channelOf = (agentId: string) => `memory:added:${agentId}`;
const commit = (agentId: string, seq: number) => ({
  id: `${agentId}-${seq}`,
  agentId,
  seq,
  type: 'note',
  createdAt: new Date('2026-12-01T00:00:00Z'),
  instruments: [],
  producerId: null,
  runKind: null,
  expiresAt: null,
});

let publish: FakeCluster;
let subscribe: FakeCluster;
let events: MemoryEvents;
/** Catch-ups (gap calls) by agent. */
let gaps: Map<string, number>;
let logged: string[];

function listen(agentId: string): () => void {
  return events.listen(
    agentId,
    () => undefined,
    () => gaps.set(agentId, (gaps.get(agentId) ?? 0) + 1),
  );
}

const count = (command: string) => subscribe.commands.filter((c) => c === command).length;

beforeEach(async () => {
  vi.useFakeTimers();
  publish = new FakeCluster();
  subscribe = new FakeCluster();
  gaps = new Map();
  logged = [];
  const logger = createLogger('warn', { write: (line: string) => void logged.push(line) });
  const wire = clusterWire(publish as unknown as Cluster, subscribe as unknown as Cluster, logger);
  events = createRedisMemoryEvents({ wire, logger });
  await vi.advanceTimersByTimeAsync(0);
});

afterEach(async () => {
  await events.close();
  vi.useRealTimers();
});

describe('events over a Redis Cluster (D4)', () => {
  it('D4: one sharded channel per agent, subscribed once per call at its first listener and left at its last; the resync channel classic', async () => {
    const stopA1 = listen('a');
    const stopA2 = listen('a');
    const stopB = listen('b');
    await vi.advanceTimersByTimeAsync(0);
    expect(subscribe.commands).toEqual([
      `SUBSCRIBE ${RESYNC_CHANNEL}`,
      `SSUBSCRIBE ${channelOf('a')}`,
      `SSUBSCRIBE ${channelOf('b')}`,
    ]);

    await events.publishMemoryAdded(commit('a', 1));
    expect(publish.published.map((p) => [p.command, p.channel, p.message.seq])).toEqual([
      ['SPUBLISH', channelOf('a'), 1],
    ]);
    stopA1();
    expect(count(`SUNSUBSCRIBE ${channelOf('a')}`)).toBe(0);
    stopA2();
    stopB();
    expect(subscribe.subscribed).toEqual(new Set());
  });

  it('D4, L2: a lost node makes every channel be confirmed again; each confirmed one catches up, the lost ones when their node is back, then every feed once more', async () => {
    for (const agent of ['a', 'b', 'c']) listen(agent);
    await vi.advanceTimersByTimeAsync(0);
    subscribe.away.add(channelOf('c'));
    subscribe.emit('-node', {}, '127.0.0.1:7003');
    await vi.advanceTimersByTimeAsync(RESUBSCRIBE_MAX_MS);
    // a and b (healthy nodes) caught up once; c's node is away: retried, no catch-up yet.
    expect(Object.fromEntries(gaps)).toEqual({ a: 1, b: 1 });
    expect(count(`SSUBSCRIBE ${channelOf('c')}`)).toBeGreaterThan(2);
    expect(logged.join('')).toMatch(/redis cluster node lost/);

    // The same node failing again (ioredis retries it) does not make healthy channels churn.
    const churned = count(`SSUBSCRIBE ${channelOf('a')}`);
    subscribe.emit('-node', {}, '127.0.0.1:7003');
    await vi.advanceTimersByTimeAsync(RESUBSCRIBE_MAX_MS);
    expect(count(`SSUBSCRIBE ${channelOf('a')}`)).toBe(churned);

    subscribe.away.delete(channelOf('c'));
    await vi.advanceTimersByTimeAsync(RESUBSCRIBE_MAX_MS);
    expect(Object.fromEntries(gaps)).toEqual({ a: 2, b: 2, c: 1 });
    expect(subscribe.subscribed).toEqual(new Set(['a', 'b', 'c'].map(channelOf)));
    expect(logged.join('')).toMatch(/redis cluster subscriptions restored/);
    // Every retry left the channel first, so ioredis lists it once (no SSUBSCRIBE without SUNSUBSCRIBE).
    const retries = subscribe.commands.filter((c) => c.endsWith(channelOf('c'))).slice(1);
    expect(retries.filter((_, i) => i % 2 === 0).every((c) => c.startsWith('SUNSUBSCRIBE'))).toBe(true);
    expect(count(`SSUBSCRIBE ${channelOf('c')}`)).toBe(count(`SUNSUBSCRIBE ${channelOf('c')}`) + 1);

    await vi.advanceTimersByTimeAsync(10 * RESUBSCRIBE_MAX_MS);
    expect(Object.fromEntries(gaps)).toEqual({ a: 2, b: 2, c: 1 }); // quiet once restored
  });

  it('D4: a closed command connection to an address that serves no slot (a replaced seed) is no loss; one to a slot owner is', async () => {
    listen('a');
    await vi.advanceTimersByTimeAsync(0);
    subscribe.slots = [['127.0.0.1:7001'], ['127.0.0.1:7002']];
    subscribe.emit('-node', { options: { host: 'redis-seed.internal', port: 7001 } });
    await vi.advanceTimersByTimeAsync(RESUBSCRIBE_MAX_MS);
    expect(gaps.size).toBe(0);
    subscribe.emit('-node', { options: { host: '127.0.0.1', port: 7002 } });
    await vi.advanceTimersByTimeAsync(RESUBSCRIBE_MAX_MS);
    expect(gaps.get('a')).toBe(1);
  });

  it('D4: a channel whose last listener left while its node was away is not subscribed again', async () => {
    const stop = listen('a');
    await vi.advanceTimersByTimeAsync(0);
    subscribe.away.add(channelOf('a'));
    subscribe.emit('close');
    await vi.advanceTimersByTimeAsync(RESUBSCRIBE_MAX_MS);
    stop();
    subscribe.away.delete(channelOf('a'));
    await vi.advanceTimersByTimeAsync(5 * RESUBSCRIBE_MAX_MS);
    expect(subscribe.subscribed).toEqual(new Set());
    expect(gaps.size).toBe(0);
  });

  it('D4, L2: a failed SPUBLISH is followed by a classic resync naming its agent; a receiver catches up that agent only', async () => {
    publish.failPublishes = true;
    await events.publishMemoryAdded(commit('a', 1));
    await vi.advanceTimersByTimeAsync(RESYNC_RETRY_MS); // still failing: tried again later
    publish.failPublishes = false;
    await vi.advanceTimersByTimeAsync(RESYNC_RETRY_MS);
    expect(publish.published.map((p) => [p.command, p.channel, p.message.agents])).toEqual([
      ['PUBLISH', RESYNC_CHANNEL, ['a']],
    ]);

    listen('a');
    listen('b');
    subscribe.emit('message', RESYNC_CHANNEL, JSON.stringify({ origin: 'other', since: '', agents: ['b'] }));
    expect(Object.fromEntries(gaps)).toEqual({ b: 1 });
    // From an instance of an earlier version (no agents named): every feed catches up.
    subscribe.emit('message', RESYNC_CHANNEL, JSON.stringify({ origin: 'other', since: '' }));
    expect(Object.fromEntries(gaps)).toEqual({ a: 1, b: 2 });
  });
});

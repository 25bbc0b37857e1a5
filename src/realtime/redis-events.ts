// Memory events across instances over Redis pub/sub (L3) that survive Redis outages: local
// subscribers are served in-process whatever Redis does, a failed publish never fails or crashes
// a write, and after an outage every instance is told to catch up from the database (L2).
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import {
  createMemoryEvents,
  eventOf,
  type GapListener,
  type CommittedMemory,
  type MemoryAddedEvent,
  type MemoryAddedListener,
  type MemoryEvents,
} from './events.js';

const TOPIC_PREFIX = 'memory:added:';
const topicOf = (agentId: string) => `${TOPIC_PREFIX}${agentId}`;
/** Published by an instance whose publishes failed, once it can publish again: "you may have missed mine". */
const RESYNC = 'memory:resync';

interface WireEvent extends MemoryAddedEvent {
  origin: string;
}
interface ResyncMessage {
  origin: string;
  /**
   * Records created from then on may not have been published. Receivers catch up from their last
   * seq whatever it says; it stays on the wire for instances of earlier versions, which read it.
   */
  since: string;
}

/** Whether an event carries what matchesFilter reads (events of earlier versions do not). */
function hasFilterFacts(event: Partial<MemoryAddedEvent>): boolean {
  return (
    Array.isArray(event.instruments) &&
    event.instruments.every((id) => typeof id === 'string') &&
    event.producerId !== undefined &&
    event.runKind !== undefined &&
    (event.expiresAt === null || typeof event.expiresAt === 'string')
  );
}

export function createRedisMemoryEvents(options: {
  publishClient: Redis;
  subscribeClient: Redis;
  logger: Logger;
}): MemoryEvents {
  return new RedisMemoryEvents(options.publishClient, options.subscribeClient, options.logger);
}

class RedisMemoryEvents implements MemoryEvents {
  private readonly origin = randomUUID();
  private readonly local = createMemoryEvents();
  /** Redis channels this instance needs, with how many local listeners need each. */
  private readonly wanted = new Map<string, number>();
  /** By agent: a gap of one agent (an event it cannot use) concerns only that agent's feed. */
  private readonly gapListeners = new Map<string, Set<GapListener>>();
  /** When the first unpublished record was created (null: every publish arrived). */
  private publishFailedSince: Date | null = null;
  /** When the subscription link went down (null: up). */
  private subscribeLinkLostAt: Date | null = null;
  private closing = false;

  constructor(
    private readonly publishClient: Redis,
    private readonly subscribeClient: Redis,
    private readonly logger: Logger,
  ) {
    subscribeClient.on('message', (channel: string, message: string) => this.receive(channel, message));
    void this.subscribe([RESYNC]);
    subscribeClient.on('close', () => this.subscribeLinkLost());
    subscribeClient.on('ready', () => this.subscribeLinkBack());
    publishClient.on('ready', () => this.publishLinkBack());
    for (const client of [publishClient, subscribeClient]) {
      client.on('error', (err: unknown) => logger.debug({ err }, 'redis connection error'));
    }
  }

  async publishMemoryAdded(memory: CommittedMemory) {
    await this.local.publishMemoryAdded(memory);
    const wire: WireEvent = { ...eventOf(memory), origin: this.origin };
    // Not awaited: the write is committed and answered whether Redis is up or not.
    this.publishClient.publish(topicOf(memory.agentId), JSON.stringify(wire)).catch((err: unknown) => {
      if (!this.publishFailedSince)
        this.logger.warn({ err }, 'redis publish failed: other instances will catch up');
      if (!this.publishFailedSince || memory.createdAt < this.publishFailedSince)
        this.publishFailedSince = memory.createdAt;
    });
  }

  listen(agentId: string, listener: MemoryAddedListener, onGap?: GapListener): () => void {
    const topic = topicOf(agentId);
    const stopLocal = this.local.listen(agentId, listener);
    const count = this.wanted.get(topic) ?? 0;
    this.wanted.set(topic, count + 1);
    if (count === 0) void this.subscribe([topic]);
    if (onGap) {
      const forAgent = this.gapListeners.get(agentId) ?? new Set<GapListener>();
      this.gapListeners.set(agentId, forAgent.add(onGap));
    }
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      stopLocal();
      const forAgent = this.gapListeners.get(agentId);
      if (onGap && forAgent?.delete(onGap) && forAgent.size === 0) this.gapListeners.delete(agentId);
      const left = (this.wanted.get(topic) ?? 1) - 1;
      if (left > 0) return void this.wanted.set(topic, left);
      this.wanted.delete(topic);
      this.subscribeClient.unsubscribe(topic).catch(() => undefined);
    };
  }

  async close() {
    this.closing = true;
    await this.local.close();
    this.publishClient.disconnect();
    this.subscribeClient.disconnect();
  }

  private receive(channel: string, message: string): void {
    let event: WireEvent & ResyncMessage;
    try {
      event = JSON.parse(message) as WireEvent & ResyncMessage;
    } catch {
      return;
    }
    if (event.origin === this.origin) return; // already delivered locally
    if (channel === RESYNC) return this.signalGap();
    // An instance of an older version sends no seq, or not the filter facts (a rolling upgrade): the
    // agent's feed reads the record from the database instead, facts and all (L2), and drops the event.
    if (!Number.isSafeInteger(event.seq) || !hasFilterFacts(event))
      return this.signalGap(channel.slice(TOPIC_PREFIX.length));
    void this.local.publishMemoryAdded({
      ...event,
      createdAt: new Date(event.createdAt),
      expiresAt: event.expiresAt === null ? null : new Date(event.expiresAt),
    });
  }

  /** Tells the feeds of `agentId` (of every agent when absent) to catch up from the database. */
  private signalGap(agentId?: string): void {
    const listeners =
      agentId === undefined
        ? [...this.gapListeners.values()].flatMap((forAgent) => [...forAgent])
        : [...(this.gapListeners.get(agentId) ?? [])];
    for (const onGap of listeners) onGap();
  }

  private subscribe(channels: string[]): Promise<boolean> {
    return this.subscribeClient.subscribe(...channels).then(
      () => true,
      (err: unknown) => {
        // Retried on the next `ready` (ioredis only resubscribes channels it saw confirmed).
        this.logger.warn({ err }, 'redis subscribe failed; retried when redis is back');
        return false;
      },
    );
  }

  private subscribeLinkLost(): void {
    if (this.closing || this.subscribeLinkLostAt) return;
    this.logger.warn('redis connection lost: live records from other instances paused');
    this.subscribeLinkLostAt = new Date();
  }

  private subscribeLinkBack(): void {
    const lostAt = this.subscribeLinkLostAt;
    if (!lostAt) return;
    this.subscribeLinkLostAt = null;
    // Re-listen first, then catch up: whatever commits after the subscription arrives live.
    void this.subscribe([RESYNC, ...this.wanted.keys()]).then((ok) => {
      if (!ok) return;
      this.logger.warn('redis connection restored: subscriptions catch up from the database');
      this.signalGap();
    });
  }

  private publishLinkBack(): void {
    const since = this.publishFailedSince;
    if (!since) return;
    this.publishFailedSince = null;
    const resync: ResyncMessage = { origin: this.origin, since: since.toISOString() };
    this.publishClient.publish(RESYNC, JSON.stringify(resync)).catch(() => {
      if (!this.publishFailedSince || since < this.publishFailedSince) this.publishFailedSince = since;
    });
  }
}

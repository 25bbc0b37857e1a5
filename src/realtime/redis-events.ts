// Memory events across instances over Redis pub/sub (L3) that survive Redis outages: local
// subscribers are served in-process whatever Redis does, a failed publish never fails or crashes
// a write, and after an outage every instance is told to catch up from the database (L2).
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import {
  createMemoryEvents,
  type GapListener,
  type CommittedMemory,
  type MemoryAddedEvent,
  type MemoryAddedListener,
  type MemoryEvents,
} from './events.js';

const topicOf = (agentId: string) => `memory:added:${agentId}`;
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
  private readonly gapListeners = new Set<GapListener>();
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
    const wire: WireEvent = {
      id: memory.id,
      agentId: memory.agentId,
      type: memory.type,
      createdAt: memory.createdAt.toISOString(),
      seq: memory.seq,
      origin: this.origin,
    };
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
    if (onGap) this.gapListeners.add(onGap);
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      stopLocal();
      if (onGap) this.gapListeners.delete(onGap);
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
    // An instance of an older version sends no seq: its subscribers' catch-up reads the record (L2).
    if (!Number.isSafeInteger(event.seq)) return this.signalGap();
    void this.local.publishMemoryAdded({ ...event, createdAt: new Date(event.createdAt) });
  }

  private signalGap(): void {
    for (const onGap of this.gapListeners) onGap();
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

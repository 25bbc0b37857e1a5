// The wire memory events cross instances on (L3): what one Redis (classic pub/sub, here) or a Redis
// Cluster (sharded pub/sub, cluster-wire.ts) offers redis-events.ts — publish, subscribe per
// agent channel, and word when a subscription may have missed messages so the feeds catch up (L2).
import type { Redis } from 'ioredis';
import type { Logger } from '../../logger.js';

/**
 * Published by an instance whose publishes failed, once it can publish again: "you may have missed
 * mine". Classic pub/sub on either kind of Redis: every instance hears it, whatever agents it serves.
 */
export const RESYNC_CHANNEL = 'memory:resync';

/** What the wire reports to the events it carries. */
export interface WireHandlers {
  /** A message on an agent's channel or on the resync channel. */
  message(channel: string, message: string): void;
  /**
   * These channels (every channel when absent) were subscribed again after a loss: messages sent
   * meanwhile may have been missed, so their feeds catch up from the database (L2).
   */
  resubscribed(channels?: readonly string[]): void;
  /** The publish link is back after being down. */
  publishLinkBack(): void;
}

export interface RedisWire {
  /** Publishes on an agent's channel. */
  publishEvent(channel: string, message: string): Promise<unknown>;
  publishResync(message: string): Promise<unknown>;
  /** Starts receiving an agent's channel (its first local listener came); retried by the wire itself. */
  addChannel(channel: string): void;
  /** Stops receiving it (its last local listener left). */
  removeChannel(channel: string): void;
  close(): void;
}

export type WireFactory = (handlers: WireHandlers) => RedisWire;

/** One Redis: PUBLISH / SUBSCRIBE; a lost connection is a gap for every channel once it is back. */
export function classicWire(publishClient: Redis, subscribeClient: Redis, logger: Logger): WireFactory {
  return (handlers) => new ClassicWire(publishClient, subscribeClient, handlers, logger);
}

class ClassicWire implements RedisWire {
  private readonly channels = new Set<string>();
  /** When the subscription link went down (null: up). */
  private linkLostAt: Date | null = null;
  private closing = false;

  constructor(
    private readonly publishClient: Redis,
    private readonly subscribeClient: Redis,
    private readonly handlers: WireHandlers,
    private readonly logger: Logger,
  ) {
    subscribeClient.on('message', (channel: string, message: string) => handlers.message(channel, message));
    void this.subscribe([RESYNC_CHANNEL]);
    subscribeClient.on('close', () => this.linkLost());
    subscribeClient.on('ready', () => this.linkBack());
    publishClient.on('ready', () => handlers.publishLinkBack());
    publishClient.once('ready', () => void this.warnWhenCluster());
    for (const client of [publishClient, subscribeClient]) {
      client.on('error', (err: unknown) => logger.debug({ err }, 'redis connection error'));
    }
  }

  publishEvent(channel: string, message: string) {
    return this.publishClient.publish(channel, message);
  }

  publishResync(message: string) {
    return this.publishClient.publish(RESYNC_CHANNEL, message);
  }

  addChannel(channel: string): void {
    this.channels.add(channel);
    void this.subscribe([channel]);
  }

  removeChannel(channel: string): void {
    this.channels.delete(channel);
    this.subscribeClient.unsubscribe(channel).catch(() => undefined);
  }

  close(): void {
    this.closing = true;
    this.publishClient.disconnect();
    this.subscribeClient.disconnect();
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

  private linkLost(): void {
    if (this.closing || this.linkLostAt) return;
    this.logger.warn('redis connection lost: live records from other instances paused');
    this.linkLostAt = new Date();
  }

  private linkBack(): void {
    if (!this.linkLostAt) return;
    this.linkLostAt = null;
    // Re-listen first, then catch up: whatever commits after the subscription arrives live.
    void this.subscribe([RESYNC_CHANNEL, ...this.channels]).then((ok) => {
      if (!ok) return;
      this.logger.warn('redis connection restored: subscriptions catch up from the database');
      this.handlers.resubscribed();
    });
  }

  /** D4: a cluster node as REDIS_URL works (classic messages cross the cluster bus), but unsharded. */
  private async warnWhenCluster(): Promise<void> {
    const info = await this.publishClient.info('cluster').catch(() => '');
    if (/^cluster_enabled:1/m.test(info))
      this.logger.warn(
        'REDIS_URL is a Redis Cluster node: every event is broadcast to all nodes; set REDIS_CLUSTER_NODES (or a redis+cluster:// REDIS_URL) for one sharded channel per agent (D4)',
      );
  }
}

// D4: memory events over a Redis Cluster. One sharded channel per agent (SPUBLISH / SSUBSCRIBE, one
// channel per call: one SSUBSCRIBE naming channels of different slots is refused), so an event goes
// to the node owning its agent's slot and no further; the resync channel stays classic. A lost node
// is a gap (L2): once its channels are confirmed subscribed again, their feeds catch up.
import type { Cluster, Redis } from 'ioredis';
import type { Logger } from '../../logger.js';
import { RESYNC_CHANNEL, type RedisWire, type WireFactory, type WireHandlers } from './redis-wire.js';

/** The first confirmation after a loss, and the longest wait between two while a node stays away. */
const RESUBSCRIBE_FIRST_MS = 100;
export const RESUBSCRIBE_MAX_MS = 2000;
/** The whole cluster connection closed: every node counts as lost. */
const EVERY_NODE = '*';

/** `subscribeClient` is created with `shardedSubscribers: true` (ioredis routes SSUBSCRIBE by slot only then). */
export function clusterWire(publishClient: Cluster, subscribeClient: Cluster, logger: Logger): WireFactory {
  return (handlers) => new ClusterWire(publishClient, subscribeClient, handlers, logger);
}

class ClusterWire implements RedisWire {
  private readonly channels = new Set<string>();
  /** Subscriptions (the resync channel's too) that may have lapsed and are not confirmed again. */
  private readonly unconfirmed = new Set<string>([RESYNC_CHANNEL]);
  /** Nodes lost since every subscription was last confirmed: a node failing again and again counts once. */
  private readonly lostNodes = new Set<string>();
  /** Counts losses: a confirmation that started before the latest one proves nothing. */
  private losses = 0;
  private waitMs = RESUBSCRIBE_FIRST_MS;
  private timer: NodeJS.Timeout | undefined;
  private confirming = false;
  private closing = false;

  constructor(
    private readonly publishClient: Cluster,
    private readonly subscribeClient: Cluster,
    private readonly handlers: WireHandlers,
    private readonly logger: Logger,
  ) {
    subscribeClient.on('smessage', (channel: string, message: string) => handlers.message(channel, message));
    subscribeClient.on('message', (channel: string, message: string) => handlers.message(channel, message));
    // ioredis names the node of a lost sharded subscriber; a lost command connection only by its options.
    subscribeClient.on('-node', (redis: Redis, nodeKey?: string) => this.connectionLost(redis, nodeKey));
    subscribeClient.on('close', () => this.nodeLost(EVERY_NODE));
    publishClient.on('ready', () => handlers.publishLinkBack());
    for (const client of [publishClient, subscribeClient]) {
      for (const event of ['error', 'node error', 'nodeError'])
        client.on(event, (err: unknown) => logger.debug({ err }, 'redis cluster connection error'));
    }
    void this.confirm();
  }

  publishEvent(channel: string, message: string) {
    return this.publishClient.spublish(channel, message);
  }

  publishResync(message: string) {
    return this.publishClient.publish(RESYNC_CHANNEL, message);
  }

  addChannel(channel: string): void {
    this.channels.add(channel);
    this.subscribeClient.ssubscribe(channel).catch(() => {
      if (!this.channels.has(channel)) return;
      this.unconfirmed.add(channel);
      this.schedule();
    });
  }

  removeChannel(channel: string): void {
    this.channels.delete(channel);
    this.unconfirmed.delete(channel);
    this.subscribeClient.sunsubscribe(channel).catch(() => undefined);
  }

  close(): void {
    this.closing = true;
    clearTimeout(this.timer);
    this.publishClient.disconnect();
    this.subscribeClient.disconnect();
  }

  private connectionLost(redis: Redis, nodeKey: string | undefined): void {
    const key = nodeKey ?? `${redis.options.host}:${redis.options.port}`;
    // A command connection counts for a node serving slots, not for a seed address the cluster replaced.
    if (nodeKey === undefined && !this.subscribeClient.slots.some((owners) => owners?.[0] === key)) return;
    this.nodeLost(key);
  }

  private nodeLost(key: string): void {
    if (this.closing || this.lostNodes.has(key)) return;
    if (this.lostNodes.size === 0)
      this.logger.warn(
        { node: key },
        'redis cluster node lost: live records from other instances paused on its channels',
      );
    this.lostNodes.add(key);
    this.losses++;
    // Which channels the node served is not asked: every channel is confirmed, a healthy one at once.
    for (const channel of [RESYNC_CHANNEL, ...this.channels]) this.unconfirmed.add(channel);
    this.waitMs = RESUBSCRIBE_FIRST_MS;
    this.schedule();
  }

  private schedule(): void {
    if (this.closing || this.confirming || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.confirm();
    }, this.waitMs);
    this.timer.unref();
    this.waitMs = Math.min(this.waitMs * 2, RESUBSCRIBE_MAX_MS);
  }

  /** Subscribes the unconfirmed channels again; those confirmed catch up, the rest are tried later. */
  private async confirm(): Promise<void> {
    if (this.closing || this.confirming) return;
    this.confirming = true;
    const losses = this.losses;
    const attempted = [...this.unconfirmed];
    const results = await Promise.all(attempted.map((channel) => this.resubscribe(channel)));
    this.confirming = false;
    if (this.closing) return;
    const settled = losses === this.losses ? attempted.filter((_, index) => results[index]) : [];
    for (const channel of settled) this.unconfirmed.delete(channel);
    if (this.unconfirmed.size === 0 && this.lostNodes.size > 0) return this.restored();
    const caughtUp = settled.filter((channel) => this.channels.has(channel));
    if (caughtUp.length > 0) this.handlers.resubscribed(caughtUp);
    if (this.unconfirmed.size > 0) this.schedule();
  }

  /** Every subscription is confirmed again: every feed catches up, the resync it may have missed too. */
  private restored(): void {
    this.lostNodes.clear();
    this.waitMs = RESUBSCRIBE_FIRST_MS;
    this.logger.warn('redis cluster subscriptions restored: subscriptions catch up from the database');
    this.handlers.resubscribed();
  }

  /** True once the channel is subscribed (confirmed by its node), or no longer wanted. */
  private async resubscribe(channel: string): Promise<boolean> {
    if (channel === RESYNC_CHANNEL)
      return this.subscribeClient.subscribe(RESYNC_CHANNEL).then(
        () => true,
        () => false,
      );
    if (!this.channels.has(channel)) return true;
    // SUNSUBSCRIBE first: ioredis lists a channel again at every SSUBSCRIBE, and retries would pile up.
    await this.subscribeClient.sunsubscribe(channel).catch(() => undefined);
    if (!this.channels.has(channel)) return true;
    const subscribed = await this.subscribeClient.ssubscribe(channel).then(
      () => true,
      () => false,
    );
    // Left while this ran: removeChannel's SUNSUBSCRIBE may have gone before this SSUBSCRIBE.
    if (subscribed && !this.channels.has(channel))
      this.subscribeClient.sunsubscribe(channel).catch(() => undefined);
    return subscribed;
  }
}

// Memory events across instances over Redis pub/sub (L3) that survive Redis outages: local
// subscribers are served in-process whatever Redis does, a failed publish never fails or crashes
// a write, and after an outage every instance is told to catch up from the database (L2).
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import { createMemoryEvents, type GapListener, type MemoryAddedEvent, type MemoryEvents } from './events.js';

const topicOf = (agentId: string) => `memory:added:${agentId}`;
/** Published by an instance whose publishes failed, once it can publish again: "you may have missed mine". */
const RESYNC = 'memory:resync';
/** A catch-up re-reads this much before the outage began: publishes in flight, clocks of other instances. */
const GAP_MARGIN_MS = 5_000;

interface WireEvent extends MemoryAddedEvent {
  origin: string;
}
interface ResyncMessage {
  origin: string;
  /** Records created from then on may not have been published. */
  since: string;
}

export function createRedisMemoryEvents(options: {
  publishClient: Redis;
  subscribeClient: Redis;
  logger: Logger;
}): MemoryEvents {
  const { publishClient, subscribeClient, logger } = options;
  const origin = randomUUID();
  const local = createMemoryEvents();
  /** Redis channels this instance needs, with how many local listeners need each. */
  const wanted = new Map<string, number>();
  const gapListeners = new Set<GapListener>();
  /** When the first unpublished record was created (null: every publish arrived). */
  let publishFailedSince: Date | null = null;
  /** When the subscription link went down (null: up). */
  let subscribeLinkLostAt: Date | null = null;
  let closing = false;

  const signalGap = (since: Date) => {
    const from = new Date(since.getTime() - GAP_MARGIN_MS);
    for (const onGap of gapListeners) onGap(from);
  };
  const subscribe = (channels: string[]) =>
    subscribeClient.subscribe(...channels).then(
      () => true,
      (err: unknown) => {
        // Retried on the next `ready` (ioredis only resubscribes channels it saw confirmed).
        logger.warn({ err }, 'redis subscribe failed; retried when redis is back');
        return false;
      },
    );

  subscribeClient.on('message', (channel: string, message: string) => {
    let event: WireEvent & ResyncMessage;
    try {
      event = JSON.parse(message) as WireEvent & ResyncMessage;
    } catch {
      return;
    }
    if (event.origin === origin) return; // already delivered locally
    if (channel === RESYNC) return signalGap(new Date(event.since));
    void local.publishMemoryAdded({ ...event, createdAt: new Date(event.createdAt) });
  });
  void subscribe([RESYNC]);

  subscribeClient.on('close', () => {
    if (closing || subscribeLinkLostAt) return;
    logger.warn('redis connection lost: live records from other instances paused');
    subscribeLinkLostAt = new Date();
  });
  subscribeClient.on('ready', () => {
    const lostAt = subscribeLinkLostAt;
    if (!lostAt) return;
    subscribeLinkLostAt = null;
    // Re-listen first, then catch up: whatever commits after the subscription arrives live.
    void subscribe([RESYNC, ...wanted.keys()]).then((ok) => {
      if (!ok) return;
      logger.warn('redis connection restored: subscriptions catch up from the database');
      signalGap(lostAt);
    });
  });
  publishClient.on('ready', () => {
    const since = publishFailedSince;
    if (!since) return;
    publishFailedSince = null;
    const resync: ResyncMessage = { origin, since: since.toISOString() };
    publishClient.publish(RESYNC, JSON.stringify(resync)).catch(() => {
      if (!publishFailedSince || since < publishFailedSince) publishFailedSince = since;
    });
  });
  for (const client of [publishClient, subscribeClient]) {
    client.on('error', (err: unknown) => logger.debug({ err }, 'redis connection error'));
  }

  return {
    async publishMemoryAdded(memory) {
      await local.publishMemoryAdded(memory);
      const wire: WireEvent = {
        id: memory.id,
        agentId: memory.agentId,
        type: memory.type,
        createdAt: memory.createdAt.toISOString(),
        origin,
      };
      // Not awaited: the write is committed and answered whether Redis is up or not.
      publishClient.publish(topicOf(memory.agentId), JSON.stringify(wire)).catch((err: unknown) => {
        if (!publishFailedSince) logger.warn({ err }, 'redis publish failed: other instances will catch up');
        if (!publishFailedSince || memory.createdAt < publishFailedSince)
          publishFailedSince = memory.createdAt;
      });
    },
    listen(agentId, listener, onGap) {
      const topic = topicOf(agentId);
      const stopLocal = local.listen(agentId, listener);
      const count = wanted.get(topic) ?? 0;
      wanted.set(topic, count + 1);
      if (count === 0) void subscribe([topic]);
      if (onGap) gapListeners.add(onGap);
      let stopped = false;
      return () => {
        if (stopped) return;
        stopped = true;
        stopLocal();
        if (onGap) gapListeners.delete(onGap);
        const left = (wanted.get(topic) ?? 1) - 1;
        if (left > 0) return void wanted.set(topic, left);
        wanted.delete(topic);
        subscribeClient.unsubscribe(topic).catch(() => undefined);
      };
    },
    async close() {
      closing = true;
      await local.close();
      publishClient.disconnect();
      subscribeClient.disconnect();
    },
  };
}

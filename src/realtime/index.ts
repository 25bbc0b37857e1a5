import type { Logger } from '../logger.js';
import { createMemoryEvents, type MemoryEvents } from './events.js';

/** In-process pub/sub, or Redis-backed when REDIS_URL is set (L3). */
export async function createRealtime(options: { redisUrl?: string; logger: Logger }): Promise<MemoryEvents> {
  if (!options.redisUrl) return createMemoryEvents();
  const [{ createRedisMemoryEvents }, { Redis }] = await Promise.all([
    import('./redis-events.js'),
    import('ioredis'),
  ]);
  // Publishes fail at once while Redis is away (no queue to grow); subscriptions wait for it.
  const publishClient = new Redis(options.redisUrl, { enableOfflineQueue: false });
  const subscribeClient = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  return createRedisMemoryEvents({ publishClient, subscribeClient, logger: options.logger });
}

import type { Logger } from '../logger.js';
import { createMemoryEvents, type MemoryEvents } from './events.js';

/** In-process pub/sub, or Redis-backed when REDIS_URL is set (L3). */
export async function createRealtime(options: { redisUrl?: string; logger: Logger }): Promise<MemoryEvents> {
  if (!options.redisUrl) return createMemoryEvents();
  const [{ createRedisEventTarget }, { Redis }] = await Promise.all([
    import('@graphql-yoga/redis-event-target'),
    import('ioredis'),
  ]);
  const publishClient = new Redis(options.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 3 });
  const subscribeClient = new Redis(options.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 3 });
  for (const client of [publishClient, subscribeClient]) {
    client.on('error', (err) => options.logger.warn({ err }, 'redis connection error'));
  }
  const eventTarget = createRedisEventTarget({ publishClient, subscribeClient });
  return createMemoryEvents(eventTarget, async () => {
    publishClient.disconnect();
    subscribeClient.disconnect();
  });
}

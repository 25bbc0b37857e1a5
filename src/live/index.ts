// The live module's entry: the memory events a server publishes to and its feeds listen on.
import type { Logger } from '../logger.js';
import { createMemoryEvents, type MemoryEvents } from './events.js';
import type { RedisClusterSettings } from './redis/settings.js';

/** In-process pub/sub; Redis-backed with REDIS_URL (L3); sharded over a Redis Cluster (D4). */
export async function createLiveEvents(options: {
  redisUrl?: string;
  redisCluster?: RedisClusterSettings;
  logger: Logger;
}): Promise<MemoryEvents> {
  const { redisUrl, redisCluster, logger } = options;
  if (!redisUrl && !redisCluster) return createMemoryEvents();
  const [{ createRedisMemoryEvents }, { classicWire }, { clusterWire }, { Cluster, Redis }] =
    await Promise.all([
      import('./redis/redis-events.js'),
      import('./redis/redis-wire.js'),
      import('./redis/cluster-wire.js'),
      import('ioredis'),
    ]);
  if (redisCluster) {
    const { nodes, username, password, tls } = redisCluster;
    const redisOptions = { username, password, ...(tls ? { tls: {} } : {}) };
    // Publishes fail at once while the cluster is away (no queue to grow); subscriptions wait for it.
    const publishClient = new Cluster(nodes, { enableOfflineQueue: false, redisOptions });
    const subscribeClient = new Cluster(nodes, { shardedSubscribers: true, redisOptions });
    return createRedisMemoryEvents({ wire: clusterWire(publishClient, subscribeClient, logger), logger });
  }
  // Publishes fail at once while Redis is away (no queue to grow); subscriptions wait for it.
  const publishClient = new Redis(redisUrl!, { enableOfflineQueue: false });
  const subscribeClient = new Redis(redisUrl!, { maxRetriesPerRequest: null });
  return createRedisMemoryEvents({ wire: classicWire(publishClient, subscribeClient, logger), logger });
}

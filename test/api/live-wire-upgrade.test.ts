// L3 during a rolling upgrade (B2): events on the Redis wire now carry the filter facts
// (instruments, producer, run kind, expiry). A message from an instance of an earlier version has
// none (or no seq at all): the receiving feed reads that agent's records from the database instead,
// so a filtered subscriber still gets exactly its records, in order, and nothing crashes.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveFilter } from '../../src/domain/memory-filter.js';
import { createLogger } from '../../src/logger.js';
import { createLiveEvents } from '../../src/live/index.js';
import { eventOf, type MemoryEvents } from '../../src/live/events.js';
import { memoryAddedStream } from '../../src/live/memory-added.js';
import { importMemories } from '../../src/service/import-memories.js';
import { createAgentFixture, startHarness, type AgentFixture, type Harness } from '../support/harness.js';
import { AgentFeeds } from '../../src/live/agent-feeds.js';

const REDIS_URL = 'redis://127.0.0.1:6379';

let h: Harness;
let events: MemoryEvents;
let raw: Redis;
let fx: AgentFixture;

beforeAll(async () => {
  events = await createLiveEvents({ redisUrl: REDIS_URL, logger: createLogger('silent') });
  h = await startHarness({ events });
  raw = new Redis(REDIS_URL);
  fx = await createAgentFixture(h, { instruments: ['BTC', 'ETH'] });
});
afterAll(async () => {
  raw?.disconnect();
  await h?.close();
});

/** Stored without an announcement: the test sends the message another instance would have sent. */
async function storeQuietly(instrument: string, content: string) {
  const [stored] = await importMemories(
    { db: h.db, events: { publishMemoryAdded: async () => {} } as never },
    [
      {
        agentId: fx.agentId,
        type: 'note',
        scope: 'INSTRUMENTS',
        instruments: [instrument],
        content,
        createdAt: new Date(),
      },
    ],
  );
  return stored!;
}

const channel = () => `memory:added:${fx.agentId}`;

describe('events of an earlier version on the Redis wire (L3, B2)', () => {
  it('L3: a message without filter facts or seq makes the feed read the record; filters still hold, order too', async () => {
    const stream = memoryAddedStream({
      db: h.db,
      feeds: new AgentFeeds(h.db, events),
      agentId: fx.agentId,
      filter: resolveFilter({ instruments: ['ETH'] }, new Date()),
      afterSeq: null,
    });
    const first = stream.next();
    for (let tries = 0; tries < 100; tries++) {
      const [, listeners] = (await raw.pubsub('NUMSUB', channel())) as [string, number];
      if (Number(listeners) > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const send = (message: object) =>
      raw.publish(channel(), JSON.stringify({ origin: 'elsewhere', ...message }));
    const earlier = ({ id, agentId, type, createdAt, seq }: Awaited<ReturnType<typeof storeQuietly>>) => ({
      id,
      agentId,
      type,
      createdAt: createdAt.toISOString(),
      seq,
    });

    const m1 = await storeQuietly('ETH', 'announced the old way');
    await send(earlier(m1)); // no facts
    expect((await first).value.id).toBe(m1.id);

    const m2 = await storeQuietly('BTC', 'not for this subscriber');
    const { seq: _seq, ...withoutSeq } = earlier(m2);
    await send(withoutSeq); // an even older message: no seq either
    const m3 = await storeQuietly('ETH', 'announced the new way');
    await send(eventOf(m3)); // facts on the wire: filtered without a read
    const m4 = await storeQuietly('ETH', 'facts of the wrong shape');
    await send({ ...eventOf(m4), instruments: 'ETH' });
    await send({ not: 'an event' });
    expect((await stream.next()).value.id).toBe(m3.id);
    expect((await stream.next()).value.id).toBe(m4.id);
    await stream.return(undefined);
  });
});

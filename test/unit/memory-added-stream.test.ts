import { describe, expect, it } from 'vitest';
import { EVERY_RECORD } from '../../src/domain/memory-filter.js';
import { createMemoryEvents } from '../../src/live/events.js';
import { SlowConsumerError } from '../../src/domain/errors.js';
import { memoryAddedStream } from '../../src/live/memory-added.js';
import type { Database } from '../../src/store/db.js';
import { AgentFeeds } from '../../src/live/agent-feeds.js';
import { EVENT_AT, EVENT_FACTS, feedEvent } from '../support/feed-events.js';

/** What a record's event carries for the filter besides type and createdAt (none of it filtered here). */
const facts = EVENT_FACTS;

// Live-only streams read only the agent's committed seq (none yet: 0) from the database.
const noDatabase = { prisma: { agent: { findUnique: async () => null } } } as unknown as Database;

/** A live-only stream of agent `a` that is already listening, with its first record's promise. */
async function listeningStream(types: string[]) {
  const events = createMemoryEvents();
  const stream = memoryAddedStream({
    db: noDatabase,
    feeds: new AgentFeeds(noDatabase, events),
    agentId: 'a',
    filter: { ...EVERY_RECORD, types },
    afterSeq: null,
  });
  const first = stream.next();
  await new Promise((r) => setTimeout(r, 0));
  return { events, stream, first };
}

describe('memoryAddedStream', () => {
  it('L1: live events of the agent that match the filter arrive once each, in order', async () => {
    const { events, stream, first } = await listeningStream(['x']);
    const at = new Date('2026-01-01T00:00:00Z');
    await events.publishMemoryAdded({ id: '1', agentId: 'a', type: 'x', createdAt: at, seq: 1, ...facts });
    await events.publishMemoryAdded({ id: '2', agentId: 'a', type: 'y', createdAt: at, seq: 2, ...facts });
    await events.publishMemoryAdded({ id: '3', agentId: 'b', type: 'x', createdAt: at, seq: 1, ...facts });
    await events.publishMemoryAdded({ id: '4', agentId: 'a', type: 'x', createdAt: at, seq: 3, ...facts });
    expect((await first).value.id).toBe('1');
    expect((await stream.next()).value.id).toBe('4');
    await stream.return(undefined);
  });

  it('a consumer that falls more than maxPending events behind is ended with SLOW_CONSUMER', async () => {
    const events = createMemoryEvents();
    const stream = memoryAddedStream({
      db: noDatabase,
      feeds: new AgentFeeds(noDatabase, events),
      agentId: 'a',
      filter: EVERY_RECORD,
      afterSeq: null,
      maxPending: 3,
    });
    const first = stream.next();
    await new Promise((r) => setTimeout(r, 0));
    for (let i = 0; i < 10; i++)
      await events.publishMemoryAdded({
        id: String(i),
        agentId: 'a',
        type: 'x',
        createdAt: new Date(),
        seq: i + 1,
        ...facts,
      });
    await first;
    await new Promise((r) => setTimeout(r, 0)); // the pump has queued everything published
    await expect(stream.next()).rejects.toBeInstanceOf(SlowConsumerError);
  });
});

describe('memoryAddedStream in commit order (L2)', () => {
  const at = EVENT_AT;
  const event = feedEvent;

  it('L2: an event that overtakes an earlier seq is held until the earlier one arrives; duplicates are dropped', async () => {
    const { events, stream, first } = await listeningStream(['x']);
    for (const seq of [3, 1, 1, 2, 3, 4]) await events.publishMemoryAdded(event(seq, seq === 2 ? 'y' : 'x'));
    expect((await first).value.id).toBe('id1');
    expect((await stream.next()).value).toEqual({ id: 'id3', createdAt: at, seq: 3 }); // 2 passed, not matching
    expect((await stream.next()).value.id).toBe('id4');
    await stream.return(undefined);
  });

  it('L2: a gap whose events never arrive is read from the database (committed rows), then the held event follows', async () => {
    const events = createMemoryEvents();
    const ranges: unknown[] = [];
    const db = {
      prisma: { agent: { findUnique: async () => null } },
      sql: {
        // The replay's parameters: the agent, then the seq range (after, up to], then the limit.
        query: async (_text: string, params: unknown[]) => {
          ranges.push(params.slice(1, 3));
          return [{ id: 'id1', type: 'x', createdAt: at, seq: '1', ...facts }];
        },
      },
    } as unknown as Database;
    const stream = memoryAddedStream({
      db,
      feeds: new AgentFeeds(db, events),
      agentId: 'a',
      filter: EVERY_RECORD,
      afterSeq: null,
    });
    const first = stream.next();
    await new Promise((r) => setTimeout(r, 0));
    await events.publishMemoryAdded(event(3));
    expect((await first).value.id).toBe('id1'); // after GAP_WAIT_MS, from the database
    expect(ranges).toEqual([[0, 2]]);
    expect((await stream.next()).value.id).toBe('id3');
    await stream.return(undefined);
  });
});

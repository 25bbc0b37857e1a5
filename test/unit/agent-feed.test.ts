// L2: one ordered feed per agent and process, shared by all its subscriptions: one listener, one
// gap read, and a failed read ends every subscription of the agent (they resume with `after`).
import { describe, expect, it } from 'vitest';
import { EVERY_RECORD } from '../../src/domain/memory-filter.js';
import { createMemoryEvents, type MemoryEvents } from '../../src/live/events.js';
import { memoryAddedStream } from '../../src/live/memory-added.js';
import type { Database } from '../../src/store/db.js';
import { AgentFeeds, type FeedMember } from '../../src/live/agent-feeds.js';
import { EVENT_AT, EVENT_FACTS, feedEvent } from '../support/feed-events.js';

const at = EVENT_AT;
const facts = EVENT_FACTS;
const event = feedEvent;

/** Events that count the listeners of the bus. */
function countedEvents(): MemoryEvents & { listeners: () => number } {
  const inner = createMemoryEvents();
  let listeners = 0;
  return {
    ...inner,
    listen(agentId, listener, onGap) {
      listeners++;
      const stop = inner.listen(agentId, listener, onGap);
      return () => {
        listeners--;
        stop();
      };
    },
    listeners: () => listeners,
  };
}

/** A database whose committed seq is 0 and whose gap reads are counted (and fail when told to). */
function fakeDatabase() {
  const reads: unknown[] = [];
  const state = { fail: false };
  const db = {
    prisma: { agent: { findUnique: async () => null } },
    sql: {
      // The replay's parameters: the agent, then the seq range (after, up to], then the limit.
      query: async (_text: string, params: unknown[]) => {
        reads.push(params.slice(1, 3));
        if (state.fail) throw new Error('database unavailable');
        return [{ id: 'id1', type: 'x', createdAt: at, seq: '1', ...facts }];
      },
    },
  } as unknown as Database;
  return { db, reads, state };
}

/** One server's feeds per event bus, as createServer makes them: streams of one bus share them. */
const feedsByBus = new Map<MemoryEvents, AgentFeeds>();
function feedsOn(db: Database, events: MemoryEvents): AgentFeeds {
  const feeds = feedsByBus.get(events) ?? new AgentFeeds(db, events);
  feedsByBus.set(events, feeds);
  return feeds;
}

const stream = (db: Database, events: MemoryEvents) =>
  memoryAddedStream({ db, feeds: feedsOn(db, events), agentId: 'a', filter: EVERY_RECORD, afterSeq: null });

describe('the agent feed (L2)', () => {
  it('L2: subscriptions of one agent share one listener and one gap read; the last one to end releases it', async () => {
    const events = countedEvents();
    const { db, reads } = fakeDatabase();
    const streams = [stream(db, events), stream(db, events)];
    const firsts = streams.map((s) => s.next());
    await new Promise((r) => setTimeout(r, 5));
    expect(events.listeners()).toBe(1);
    await events.publishMemoryAdded(event(2)); // seq 1 never arrives: read once, for both
    for (const first of firsts) expect((await first).value.id).toBe('id1');
    for (const s of streams) expect((await s.next()).value.id).toBe('id2');
    expect(reads).toEqual([[0, 1]]);
    await streams[0]!.return(undefined);
    expect(events.listeners()).toBe(1);
    await streams[1]!.return(undefined);
    expect(events.listeners()).toBe(0);
  });

  it('L2: a failed gap read ends every subscription of the agent with the error; the next one starts a new feed', async () => {
    const events = countedEvents();
    const { db, state } = fakeDatabase();
    state.fail = true;
    const streams = [stream(db, events), stream(db, events)];
    const firsts = streams.map((s) => s.next());
    await new Promise((r) => setTimeout(r, 5));
    await events.publishMemoryAdded(event(2));
    for (const first of firsts) await expect(first).rejects.toThrow('database unavailable');
    expect(events.listeners()).toBe(0);

    state.fail = false;
    const again = stream(db, events);
    const first = again.next();
    await new Promise((r) => setTimeout(r, 5));
    expect(events.listeners()).toBe(1);
    await events.publishMemoryAdded(event(1));
    expect((await first).value.id).toBe('id1');
    await again.return(undefined);
  });

  it('L2: a gap read queued behind a slow one, whose gap that one already filled, reads nothing (it read up to Infinity and ended the feed)', async () => {
    const events = countedEvents();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const reads: unknown[] = [];
    const db = {
      prisma: { agent: { findUnique: async () => null } },
      sql: {
        query: async (_text: string, params: unknown[]) => {
          const range = params.slice(1, 3);
          reads.push(range);
          // PostgreSQL refuses a bigint parameter of Infinity (22P02).
          if (!range.every((n) => Number.isSafeInteger(n)))
            throw new Error('invalid input syntax for type bigint');
          if (reads.length === 1) await gate; // the first gap read is slow
          return [{ id: 'id1', type: 'x', createdAt: at, seq: '1', ...facts }];
        },
      },
    } as unknown as Database;
    const feed = stream(db, events);
    const received: string[] = [];
    const consumed = (async () => {
      for await (const record of feed) {
        received.push(record.id);
        if (received.length === 3) return;
      }
    })();
    await new Promise((r) => setTimeout(r, 5));
    await events.publishMemoryAdded(event(2)); // seq 1 missing: a gap read starts after 50 ms and hangs
    await new Promise((r) => setTimeout(r, 80));
    await events.publishMemoryAdded(event(3)); // still a gap: another read is queued behind the first
    await new Promise((r) => setTimeout(r, 80));
    release(); // the first read fills seq 1; 2 and 3 follow; nothing is held when the queued read runs
    await consumed;
    expect(received).toEqual(['id1', 'id2', 'id3']);
    expect(reads).toEqual([[0, 1]]);
  });

  it('L1: a record is offered to the members that can match its type — those of any type and of its own — and to no other', async () => {
    const events = countedEvents();
    const { db } = fakeDatabase();
    const feeds = new AgentFeeds(db, events);
    const offered: Record<string, number[]> = {};
    const member = (name: string, types: string[] | null): FeedMember => ({
      searches: false,
      types,
      onRecord: (record) => void (offered[name] ??= []).push(record.seq),
      onFail: () => {},
    });
    const joined = await Promise.all(
      [member('any', null), member('x', ['x']), member('x or y', ['x', 'y']), member('z', ['z'])].map((m) =>
        feeds.join('a', m),
      ),
    );
    // The feed starts at seq 0 (the fake's committed seq): 1, 2, 3 follow without a gap.
    for (const [seq, type] of [
      [1, 'x'],
      [2, 'y'],
      [3, 'w'],
    ] as const)
      await events.publishMemoryAdded(event(seq, type));
    expect(offered).toEqual({ any: [1, 2, 3], x: [1], 'x or y': [1, 2] });
    // Leaving takes a member out of every type it was listed under; the others go on.
    joined[2]!.leave();
    joined[3]!.leave();
    await events.publishMemoryAdded(event(4, 'y'));
    await events.publishMemoryAdded(event(5, 'z'));
    expect(offered).toEqual({ any: [1, 2, 3, 4, 5], x: [1], 'x or y': [1, 2] });
    for (const { leave } of joined.slice(0, 2)) leave();
    expect(events.listeners()).toBe(0);
  });
});

// B11, L1/L2: a live search is the database's answer, which may come back in any order;
// the subscription still delivers in seq order, once, and asks one statement per record for every
// text searched. A database whose answers the test releases one by one.
import { describe, expect, it } from 'vitest';
import { resolveFilter } from '../../src/domain/memory-filter.js';
import { createMemoryEvents } from '../../src/live/events.js';
import { memoryAddedStream } from '../../src/live/memory-added.js';
import type { Database } from '../../src/store/db.js';
import { AgentFeeds } from '../../src/live/agent-feeds.js';

const at = new Date('2026-09-01T10:00:00Z');
const facts = { instruments: [], producerId: null, runKind: null, expiresAt: null };
const event = (seq: number) => ({ id: `id${seq}`, agentId: 'a', type: 'x', createdAt: at, seq, ...facts });

interface Question {
  memoryId: string;
  texts: string[];
  answer(matched: string[]): void;
  fail(error: Error): void;
}

/** Committed seq 0; every search statement waits until the test answers it. */
function searchedDatabase() {
  const questions: Question[] = [];
  const db = {
    prisma: { agent: { findUnique: async () => null } },
    sql: {
      query: (_text: string, params: unknown[], name?: string) => {
        if (name !== 'search_match') throw new Error(`unexpected statement ${name}`);
        const [memoryId, , texts] = params as [string, string, string[]];
        return new Promise((resolve, reject) =>
          questions.push({
            memoryId,
            texts,
            answer: (matched) => resolve(matched.map((text) => ({ text }))),
            fail: reject,
          }),
        );
      },
    },
  } as unknown as Database;
  return { db, questions };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

/** One server's feeds per event bus, as createServer makes them: streams of one bus share them. */
const feedsByBus = new Map<ReturnType<typeof createMemoryEvents>, AgentFeeds>();
function feedsOn(db: Database, events: ReturnType<typeof createMemoryEvents>): AgentFeeds {
  const feeds = feedsByBus.get(events) ?? new AgentFeeds(db, events);
  feedsByBus.set(events, feeds);
  return feeds;
}

async function searching(db: Database, events: ReturnType<typeof createMemoryEvents>, text: string) {
  const stream = memoryAddedStream({
    db,
    feeds: feedsOn(db, events),
    agentId: 'a',
    filter: resolveFilter({ text }, at),
    afterSeq: null,
  });
  const first = stream.next();
  await tick();
  return { stream, first };
}

describe('live search (B11, L1, L2)', () => {
  it('L2: answers that come back out of order are delivered in seq order, the non-matching skipped', async () => {
    const { db, questions } = searchedDatabase();
    const events = createMemoryEvents();
    const { stream, first } = await searching(db, events, 'bearish');
    for (const seq of [1, 2, 3]) await events.publishMemoryAdded(event(seq));
    await tick();
    expect(questions.map((q) => q.memoryId)).toEqual(['id1', 'id2', 'id3']);
    let delivered: string | undefined;
    void first.then((result) => (delivered = result.value.id));
    questions[2]!.answer(['bearish']);
    questions[1]!.answer([]);
    await tick();
    expect(delivered).toBeUndefined(); // id3 waits for id1's answer
    questions[0]!.answer(['bearish']);
    expect((await first).value.id).toBe('id1');
    expect((await stream.next()).value.id).toBe('id3');
    await stream.return(undefined);
  });

  it('B11: one statement per record for every text its subscribers search, each text once', async () => {
    const { db, questions } = searchedDatabase();
    const events = createMemoryEvents();
    const subs = [
      await searching(db, events, 'bearish'),
      await searching(db, events, ' bearish '),
      await searching(db, events, 'lesson'),
    ];
    await events.publishMemoryAdded(event(1));
    await tick();
    expect(questions).toHaveLength(1);
    expect(questions[0]!.texts.sort()).toEqual(['bearish', 'lesson']);
    questions[0]!.answer(['lesson']);
    expect((await subs[2]!.first).value.id).toBe('id1');
    await events.publishMemoryAdded(event(2));
    await tick();
    expect(questions).toHaveLength(2);
    questions[1]!.answer(['bearish']);
    for (const sub of subs.slice(0, 2)) expect((await sub.first).value.id).toBe('id2');
    for (const sub of subs) await sub.stream.return(undefined);
  });

  it('B11: a failed search ends the subscription with the error (the client resumes with after)', async () => {
    const { db, questions } = searchedDatabase();
    const events = createMemoryEvents();
    const { first } = await searching(db, events, 'bearish');
    await events.publishMemoryAdded(event(1));
    await tick();
    questions[0]!.fail(new Error('database unavailable'));
    await expect(first).rejects.toThrow('database unavailable');
  });
});

// L2 across a lost cross-instance link: after a gap signal a live subscription reads what it missed
// from the database — every record once, never one from before the subscription started.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionRevokedError } from '../../src/domain/errors.js';
import { EVERY_RECORD } from '../../src/domain/memory-filter.js';
import { createMemoryEvents, type GapListener, type MemoryEvents } from '../../src/live/events.js';
import { memoryAddedStream, type AddedRecord } from '../../src/live/memory-added.js';
import { createAgentFixture, startHarness, startRun, writeOk, type Harness } from '../support/harness.js';
import { AgentFeeds } from '../../src/live/agent-feeds.js';

/** In-process events whose publishes can be dropped (as while Redis is away) and that can signal a gap. */
function lossyEvents(): MemoryEvents & { dropping: boolean; gap(): void } {
  const inner = createMemoryEvents();
  const gapListeners = new Set<GapListener>();
  return {
    dropping: false,
    async publishMemoryAdded(memory) {
      if (!this.dropping) await inner.publishMemoryAdded(memory);
    },
    listen(agentId, listener, onGap) {
      const stop = inner.listen(agentId, listener);
      if (onGap) gapListeners.add(onGap);
      return () => {
        stop();
        if (onGap) gapListeners.delete(onGap);
      };
    },
    gap() {
      for (const onGap of gapListeners) onGap();
    },
    publishRunChanged: (event) => inner.publishRunChanged(event),
    listenRuns: (agentId, listener) => inner.listenRuns(agentId, listener),
    close: () => inner.close(),
  };
}

let h: Harness;
let events: ReturnType<typeof lossyEvents>;
let agentId: string;
let token: string;

beforeAll(async () => {
  events = lossyEvents();
  h = await startHarness({ events });
  const fx = await createAgentFixture(h, { instruments: ['ETH'] });
  agentId = fx.agentId;
  token = (await startRun(h, fx.producers.adhoc!.id)).token;
});
afterAll(async () => {
  await h.close();
});

const write = async (content: string) =>
  (await writeOk(h, token, { type: 'note', scope: 'AGENT', content })).id as string;

async function take(stream: AsyncGenerator<AddedRecord>, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push((await stream.next()).value!.id);
  return ids;
}

describe('catch-up after a gap (L2, L3)', () => {
  it('L2: after a gap a live subscription receives the records whose events were lost, once each, in commit order, none from before it started', async () => {
    await write('before the subscription'); // older than the subscription: never delivered
    const stream = memoryAddedStream({
      db: h.db,
      feeds: new AgentFeeds(h.db, events),
      agentId,
      filter: EVERY_RECORD,
      afterSeq: null,
    });
    const first = stream.next();
    // A record that commits while the subscription is still starting may count as before it (the
    // start is not one instant): write until one arrives, each given 2 s to.
    let live = '';
    let arrived: string | null = null;
    for (let attempt = 0; attempt < 10 && arrived === null; attempt++) {
      live = await write('live');
      const timeout = new Promise<null>((resolve) => setTimeout(() => resolve(null), 2_000));
      arrived = await Promise.race([first.then((result) => result.value!.id), timeout]);
    }
    expect(arrived).toBe(live);

    // Lost events and no later one: the gap signal (the link came back) reads them from the database.
    events.dropping = true;
    const lost = [await write('lost 1'), await write('lost 2')];
    events.dropping = false;
    // The gap reaches back before the subscription: it continues from the last seq it passed, so the
    // older record stays out and the live one is not repeated.
    events.gap();
    expect(await take(stream, 2)).toEqual(lost);

    // Lost events, then a later one: its seq shows the gap, the missing records come first (commit order).
    events.dropping = true;
    const lostAgain = [await write('lost 3'), await write('lost 4')];
    events.dropping = false;
    const afterwards = await write('live again');
    expect(await take(stream, 3)).toEqual([...lostAgain, afterwards]);
    events.gap();
    const last = await write('after the catch-up');
    expect(await take(stream, 1)).toEqual([last]);
    await stream.return(undefined);
  });
});

describe('revocation during a replay (S6)', () => {
  it('S6: a token revoked while its subscription replays gets no further record, then FORBIDDEN', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push(await write(`replayed ${i}`));
    let revoke = () => {};
    let watching = false;
    const stream = memoryAddedStream({
      db: h.db,
      feeds: new AgentFeeds(h.db, events),
      agentId,
      filter: EVERY_RECORD,
      afterSeq: 0,
      watchToken: (onRevoked) => {
        revoke = onRevoked;
        watching = true;
        return () => (watching = false);
      },
    });
    const first = await stream.next();
    expect(first.done).toBe(false);
    revoke();
    await expect(stream.next()).rejects.toBeInstanceOf(SessionRevokedError);
    expect(watching).toBe(false); // the stream stopped watching the token when it ended
  });

  it('L1: returning a waiting stream releases its listener at once (no event needed)', async () => {
    let listening = 0;
    const counting: MemoryEvents = {
      ...events,
      listen(agent, listener, onGap) {
        listening++;
        const stop = events.listen(agent, listener, onGap);
        return () => {
          listening--;
          stop();
        };
      },
    };
    const stream = memoryAddedStream({
      db: h.db,
      feeds: new AgentFeeds(h.db, counting),
      agentId,
      filter: EVERY_RECORD,
      afterSeq: null,
    });
    const pending = stream.next(); // starts the stream; it waits for a live record
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(listening).toBe(1);
    await stream.return(undefined);
    expect((await pending).done).toBe(true);
    expect(listening).toBe(0);
  });
});

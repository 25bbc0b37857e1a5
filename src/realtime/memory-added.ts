// memoryAdded (L1, L2): subscribe to live events FIRST, then replay what the client missed after its
// cursor, then continue live — de-duplicated by id, so nothing is lost and nothing arrives twice.
// The stream is a Repeater, so a client that unsubscribes while nothing arrives releases its
// listener at once (an async generator would wait for the next event before running `finally`).
import { Repeater } from 'graphql-yoga';
import type { Metrics } from '../metrics.js';
import { SessionRevokedError, SlowConsumerError } from '../domain/errors.js';
import type { CursorPosition } from '../domain/cursor.js';
import type { Database } from '../store/db.js';
import { matchesFilter, type ResolvedFilter } from '../domain/memory-filter.js';
import { listMemoryIdsAfter } from '../store/browse.js';
import type { MemoryAddedEvent, MemoryEvents } from './events.js';

export const REPLAY_PAGE_SIZE = 200;
/** Undelivered live events one subscription may hold before it is ended as a slow consumer. */
export const MAX_PENDING_EVENTS = 1000;
/** How many delivered ids are remembered to drop their late duplicates (per subscription). */
const REMEMBERED_IDS = 10_000;

const NIL_UUID = '00000000-0000-0000-0000-000000000000';

export interface AddedRecord {
  id: string;
  createdAt: Date;
}

export interface MemoryAddedOptions {
  db: Database;
  events: MemoryEvents;
  agentId: string;
  filter: ResolvedFilter;
  after: CursorPosition | null;
  maxPending?: number;
  /**
   * Watches the subscriber's token while the stream runs: calls `onRevoked` when the token stops
   * authenticating (S6, L4) and returns how to stop watching.
   */
  watchToken?: (onRevoked: () => void) => () => void;
  metrics?: Metrics;
}

/** Matching records of `agentId` in commit order: the replay after `after`, then live ones. */
export function memoryAddedStream(options: MemoryAddedOptions): Repeater<AddedRecord> {
  return new Repeater<AddedRecord>(async (push, stop) => {
    const ended = new AbortController();
    void stop.then(() => ended.abort());
    try {
      for await (const record of records(options, ended.signal)) {
        if (ended.signal.aborted) break;
        await push(record);
      }
      stop();
    } catch (error) {
      stop(error);
    }
  });
}

/** Live events of one agent, queued (bounded) from before the replay starts, so none is missed meanwhile. */
class LiveQueue {
  private readonly pending: MemoryAddedEvent[] = [];
  private waiting: (() => void) | null = null;
  private gapSince: Date | null = null;
  overflow = false;
  readonly close: () => void;

  constructor(events: MemoryEvents, agentId: string, maxPending: number) {
    this.close = events.listen(
      agentId,
      (event) => {
        if (this.pending.length >= maxPending) this.overflow = true;
        else this.pending.push(event);
        this.notify();
      },
      (since) => {
        if (!this.gapSince || since < this.gapSince) this.gapSince = since;
        this.notify();
      },
    );
  }

  readonly notify = (): void => this.waiting?.();
  next(): MemoryAddedEvent | undefined {
    return this.pending.shift();
  }
  /** L3: the instant since which live events may have been lost (the link was down), once. */
  takeGap(): Date | null {
    const since = this.gapSince;
    this.gapSince = null;
    return since;
  }
  async wait(): Promise<void> {
    await new Promise<void>((resolve) => (this.waiting = resolve));
    this.waiting = null;
  }
}

/** Delivered ids, the most recent REMEMBERED_IDS of them, to drop late duplicates. */
class SeenIds {
  private readonly ids = new Set<string>();
  has(id: string): boolean {
    return this.ids.has(id);
  }
  add(id: string): void {
    this.ids.add(id);
    if (this.ids.size > REMEMBERED_IDS) this.ids.delete(this.ids.values().next().value as string);
  }
}

interface Delivery {
  options: MemoryAddedOptions;
  seen: SeenIds;
  ended: AbortSignal;
  /** Throws when the token stopped authenticating (S6). */
  checkRevoked: () => void;
}

/** L2: the matching records after `from` that this subscription has not delivered, oldest first. */
async function* replayAfter(delivery: Delivery, from: CursorPosition): AsyncGenerator<AddedRecord> {
  const { options, seen, ended } = delivery;
  let page;
  do {
    page = await listMemoryIdsAfter(options.db, options.agentId, options.filter, from, REPLAY_PAGE_SIZE);
    for (const record of page) {
      // S6: a revoked token stops receiving mid-replay too, not only between live records.
      if (ended.aborted) return;
      delivery.checkRevoked();
      if (seen.has(record.id)) continue;
      seen.add(record.id);
      options.metrics?.deliveries.inc({ source: 'replay' });
      yield { id: record.id, createdAt: record.createdAt };
    }
    const last = page[page.length - 1];
    if (last) from = { createdAt: last.createdAt, id: last.id };
  } while (page.length === REPLAY_PAGE_SIZE);
}

/** A live event as a delivery, or null when it was delivered already or does not match (L1). */
function liveRecord(delivery: Delivery, event: MemoryAddedEvent): AddedRecord | null {
  if (delivery.seen.has(event.id)) return null;
  const record = { id: event.id, type: event.type, createdAt: new Date(event.createdAt) };
  if (!matchesFilter(record, delivery.options.filter)) return null;
  // Remembered too: a catch-up after a gap must not repeat it.
  delivery.seen.add(record.id);
  delivery.options.metrics?.deliveries.inc({ source: 'live' });
  return { id: record.id, createdAt: record.createdAt };
}

async function* records(options: MemoryAddedOptions, ended: AbortSignal): AsyncGenerator<AddedRecord> {
  const { metrics } = options;
  const revoked = new AbortController();
  const stopWatching = options.watchToken?.(() => revoked.abort()) ?? (() => {});
  const queue = new LiveQueue(options.events, options.agentId, options.maxPending ?? MAX_PENDING_EVENTS);
  revoked.signal.addEventListener('abort', queue.notify);
  ended.addEventListener('abort', queue.notify);
  metrics?.subscriptions.inc();
  const delivery: Delivery = {
    options,
    seen: new SeenIds(),
    ended,
    checkRevoked: () => {
      if (!revoked.signal.aborted) return;
      metrics?.drops.inc({ reason: 'revoked' });
      throw new SessionRevokedError();
    },
  };
  // A catch-up after a gap never reaches behind where this subscription started.
  const floor: CursorPosition = options.after ?? { createdAt: new Date(), id: NIL_UUID };
  try {
    if (options.after) yield* replayAfter(delivery, options.after);
    for (;;) {
      if (ended.aborted) return;
      delivery.checkRevoked();
      if (queue.overflow) {
        metrics?.drops.inc({ reason: 'slow_consumer' });
        throw new SlowConsumerError(MAX_PENDING_EVENTS);
      }
      const gap = queue.takeGap();
      if (gap) {
        // Live events may have been lost (L3 link down): the database has them all (L2).
        yield* replayAfter(delivery, gap > floor.createdAt ? { createdAt: gap, id: NIL_UUID } : floor);
        continue;
      }
      const event = queue.next();
      if (!event) await queue.wait();
      else {
        const record = liveRecord(delivery, event);
        if (record) yield record;
      }
    }
  } finally {
    queue.close();
    stopWatching();
    revoked.signal.removeEventListener('abort', queue.notify);
    ended.removeEventListener('abort', queue.notify);
    metrics?.subscriptions.dec();
  }
}

// memoryAdded (L1, L2): subscribe to live events FIRST, then replay what the client missed after its
// cursor, then continue live — all in seq order, the agent's commit order (see insertMemory). The
// stream remembers the last seq it has passed (every record of the agent, matching or not): a live
// event at or below it is a duplicate; one beyond the next is held until the missing ones arrive,
// and read from the database (committed rows only) if they do not within GAP_WAIT_MS — so delivery
// never skips a record, never repeats one, and never reorders two.
// The stream is a Repeater, so a client that unsubscribes while nothing arrives releases its
// listener at once (an async generator would wait for the next event before running `finally`).
import { Repeater } from 'graphql-yoga';
import type { Metrics } from '../metrics.js';
import { SessionRevokedError, SlowConsumerError } from '../domain/errors.js';
import type { Database } from '../store/db.js';
import { matchesFilter, type ResolvedFilter } from '../domain/memory-filter.js';
import { committedSeq, listMemoriesInSeqRange, type SequencedMemory } from '../store/browse.js';
import type { MemoryAddedEvent, MemoryEvents } from './events.js';

export const REPLAY_PAGE_SIZE = 200;
/** Undelivered live events one subscription may hold before it is ended as a slow consumer. */
export const MAX_PENDING_EVENTS = 1000;
/** How long an event waits for the events of earlier seqs before they are read from the database. */
export const GAP_WAIT_MS = 50;

export interface AddedRecord {
  id: string;
  createdAt: Date;
  seq: number;
}

export interface MemoryAddedOptions {
  db: Database;
  events: MemoryEvents;
  agentId: string;
  filter: ResolvedFilter;
  /** The seq of the last record the client saw (L2), or null to start with what commits next. */
  afterSeq: number | null;
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
  /** Until an event, a gap or an end arrives, or `ms` have passed. */
  async wait(ms?: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      this.waiting = resolve;
      if (ms !== undefined) timer = setTimeout(resolve, ms);
    });
    clearTimeout(timer);
    this.waiting = null;
  }
  get size(): number {
    return this.pending.length;
  }
}

interface Delivery {
  options: MemoryAddedOptions;
  ended: AbortSignal;
  /** Every record of the agent up to this seq has been passed (delivered when it matched). */
  last: number;
  /** Live events beyond last + 1, by seq, waiting for the ones before them. */
  held: Map<number, MemoryAddedEvent>;
  /** When the oldest gap in `held` is read from the database instead of awaited. */
  gapDeadline: number;
  /** Throws when the token stopped authenticating (S6). */
  checkRevoked: () => void;
}

/** L2: the matching records with last < seq <= upTo, read from the database in seq order; then last = upTo. */
async function* replayTo(delivery: Delivery, upTo: number): AsyncGenerator<AddedRecord> {
  const { options, ended } = delivery;
  let page: SequencedMemory[];
  do {
    const range = { afterSeq: delivery.last, upToSeq: upTo };
    page = await listMemoriesInSeqRange(options.db, options.agentId, options.filter, range, REPLAY_PAGE_SIZE);
    for (const record of page) {
      // S6: a revoked token stops receiving mid-replay too, not only between live records.
      if (ended.aborted) return;
      delivery.checkRevoked();
      delivery.last = record.seq;
      options.metrics?.deliveries.inc({ source: 'replay' });
      yield { id: record.id, createdAt: record.createdAt, seq: record.seq };
    }
  } while (page.length === REPLAY_PAGE_SIZE);
  if (upTo > delivery.last) delivery.last = upTo;
  for (const seq of delivery.held.keys()) if (seq <= delivery.last) delivery.held.delete(seq);
}

/** The held live events that continue `last` without a gap, in seq order, those matching (L1) as deliveries. */
function* releaseHeld(delivery: Delivery): Generator<AddedRecord> {
  for (
    let event = delivery.held.get(delivery.last + 1);
    event;
    event = delivery.held.get(delivery.last + 1)
  ) {
    delivery.held.delete(event.seq);
    delivery.last = event.seq;
    const record = { id: event.id, type: event.type, createdAt: new Date(event.createdAt), seq: event.seq };
    if (!matchesFilter(record, delivery.options.filter)) continue;
    delivery.options.metrics?.deliveries.inc({ source: 'live' });
    yield { id: record.id, createdAt: record.createdAt, seq: record.seq };
  }
}

/** Takes a live event: drops a duplicate, holds it in seq order, starts the gap clock when one opens. */
function hold(delivery: Delivery, event: MemoryAddedEvent): void {
  if (event.seq <= delivery.last) return;
  if (delivery.held.size === 0) delivery.gapDeadline = Date.now() + GAP_WAIT_MS;
  delivery.held.set(event.seq, event);
}

/** The smallest held seq (the held map is small: events that arrived within one GAP_WAIT_MS). */
function firstHeld(delivery: Delivery): number {
  let first = Infinity;
  for (const seq of delivery.held.keys()) if (seq < first) first = seq;
  return first;
}

async function* records(options: MemoryAddedOptions, ended: AbortSignal): AsyncGenerator<AddedRecord> {
  const { metrics } = options;
  const maxPending = options.maxPending ?? MAX_PENDING_EVENTS;
  const revoked = new AbortController();
  const stopWatching = options.watchToken?.(() => revoked.abort()) ?? (() => {});
  const queue = new LiveQueue(options.events, options.agentId, maxPending);
  revoked.signal.addEventListener('abort', queue.notify);
  ended.addEventListener('abort', queue.notify);
  metrics?.subscriptions.inc();
  const delivery: Delivery = {
    options,
    ended,
    last: 0,
    held: new Map(),
    gapDeadline: 0,
    checkRevoked: () => {
      if (!revoked.signal.aborted) return;
      metrics?.drops.inc({ reason: 'revoked' });
      throw new SessionRevokedError();
    },
  };
  try {
    // Listening already: whatever commits above this seq arrives live (or is read at a gap).
    const committed = await committedSeq(options.db, options.agentId);
    if (options.afterSeq === null) delivery.last = committed;
    else {
      delivery.last = options.afterSeq;
      yield* replayTo(delivery, committed);
    }
    for (;;) {
      if (ended.aborted) return;
      delivery.checkRevoked();
      if (queue.overflow || delivery.held.size >= maxPending) {
        metrics?.drops.inc({ reason: 'slow_consumer' });
        throw new SlowConsumerError(MAX_PENDING_EVENTS);
      }
      if (queue.takeGap()) {
        // Live events may have been lost (L3 link down): the database has them all (L2), and a
        // catch-up never reaches behind where this subscription started (it continues from `last`).
        yield* replayTo(delivery, await committedSeq(options.db, options.agentId));
        continue;
      }
      const event = queue.next();
      if (event) {
        hold(delivery, event);
        yield* releaseHeld(delivery);
      } else if (delivery.held.size === 0) await queue.wait();
      else if (Date.now() < delivery.gapDeadline) await queue.wait(delivery.gapDeadline - Date.now());
      else {
        // The held event committed, so every seq below it has too: read the missing ones.
        yield* replayTo(delivery, firstHeld(delivery) - 1);
        yield* releaseHeld(delivery);
        if (delivery.held.size > 0) delivery.gapDeadline = Date.now() + GAP_WAIT_MS;
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

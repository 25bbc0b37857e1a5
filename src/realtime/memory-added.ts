// memoryAdded (L1, L2): subscribe to live events FIRST, then replay what the client missed after its
// cursor, then continue live — de-duplicated by id, so nothing is lost and nothing arrives twice.
// The stream is a Repeater, so a client that unsubscribes while nothing arrives releases its
// listener at once (an async generator would wait for the next event before running `finally`).
import { GraphQLError } from 'graphql';
import { Repeater } from 'graphql-yoga';
import type { Metrics } from '../metrics.js';
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

/** Ends one subscription whose consumer fell too far behind; it resumes with `after`. */
export class SlowConsumerError extends GraphQLError {
  constructor() {
    super(
      `slow consumer: more than ${MAX_PENDING_EVENTS} undelivered records; resubscribe with after=<last cursor>`,
      { extensions: { code: 'SLOW_CONSUMER' } },
    );
  }
}

/** Ends a subscription whose token was revoked or whose run finished (S6, L4). */
export class SessionRevokedError extends GraphQLError {
  constructor() {
    super('Forbidden: the token was revoked', { extensions: { code: 'FORBIDDEN' } });
  }
}

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

async function* records(options: MemoryAddedOptions, ended: AbortSignal): AsyncGenerator<AddedRecord> {
  const { db, events, agentId, filter, metrics } = options;
  const revoked = new AbortController();
  const signal = revoked.signal;
  const stopWatching = options.watchToken?.(() => revoked.abort()) ?? (() => {});
  const maxPending = options.maxPending ?? MAX_PENDING_EVENTS;
  const pending: MemoryAddedEvent[] = [];
  const waiter: { wake: (() => void) | null } = { wake: null };
  let overflow = false;
  let gapSince: Date | null = null;

  // Listen before the replay starts, into a bounded queue, so no event is missed meanwhile.
  const stopListening = events.listen(
    agentId,
    (event) => {
      if (pending.length >= maxPending) overflow = true;
      else pending.push(event);
      waiter.wake?.();
    },
    (since) => {
      if (!gapSince || since < gapSince) gapSince = since;
      waiter.wake?.();
    },
  );

  const wake = () => waiter.wake?.();
  signal.addEventListener('abort', wake);
  ended.addEventListener('abort', wake);
  metrics?.subscriptions.inc();

  const seen = new Set<string>();
  const remember = (id: string) => {
    seen.add(id);
    if (seen.size > REMEMBERED_IDS) seen.delete(seen.values().next().value as string);
  };
  // A catch-up after a gap never reaches behind where this subscription started.
  const floor: CursorPosition = options.after ?? { createdAt: new Date(), id: NIL_UUID };

  const revokedError = () => {
    metrics?.drops.inc({ reason: 'revoked' });
    return new SessionRevokedError();
  };

  async function* replayAfter(from: CursorPosition): AsyncGenerator<AddedRecord> {
    let page;
    do {
      page = await listMemoryIdsAfter(db, agentId, filter, from, REPLAY_PAGE_SIZE);
      for (const record of page) {
        // S6: a revoked token stops receiving mid-replay too, not only between live records.
        if (ended.aborted) return;
        if (signal.aborted) throw revokedError();
        if (seen.has(record.id)) continue;
        remember(record.id);
        metrics?.deliveries.inc({ source: 'replay' });
        yield { id: record.id, createdAt: record.createdAt };
      }
      const last = page[page.length - 1];
      if (last) from = { createdAt: last.createdAt, id: last.id };
    } while (page.length === REPLAY_PAGE_SIZE);
  }

  try {
    if (options.after) {
      yield* replayAfter(options.after);
    }
    for (;;) {
      if (ended.aborted) return;
      if (signal.aborted) throw revokedError();
      if (overflow) {
        metrics?.drops.inc({ reason: 'slow_consumer' });
        throw new SlowConsumerError();
      }
      if (gapSince) {
        // Live events may have been lost (L3 link down): the database has them all (L2).
        const since: CursorPosition = { createdAt: gapSince, id: NIL_UUID };
        gapSince = null;
        yield* replayAfter(since.createdAt > floor.createdAt ? since : floor);
        continue;
      }
      const event = pending.shift();
      if (event) {
        if (seen.has(event.id)) continue;
        const record = { id: event.id, type: event.type, createdAt: new Date(event.createdAt) };
        if (!matchesFilter(record, filter)) continue;
        // Remembered too: a catch-up after a gap must not repeat it.
        remember(record.id);
        metrics?.deliveries.inc({ source: 'live' });
        yield { id: record.id, createdAt: record.createdAt };
        continue;
      }
      await new Promise<void>((resolve) => (waiter.wake = resolve));
      waiter.wake = null;
    }
  } finally {
    stopListening();
    stopWatching();
    signal.removeEventListener('abort', wake);
    ended.removeEventListener('abort', wake);
    metrics?.subscriptions.dec();
  }
}

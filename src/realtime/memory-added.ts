// memoryAdded (L1, L2): subscribe to live events FIRST, then replay what the client missed after its
// cursor, then continue live — de-duplicated by id, so nothing is lost and nothing arrives twice.
import { GraphQLError } from 'graphql';
import type { CursorPosition } from '../domain/cursor.js';
import type { Database } from '../store/db.js';
import { listMemoryIdsAfter, matchesFilter, type ResolvedFilter } from '../store/browse.js';
import type { MemoryAddedEvent, MemoryEvents } from './events.js';
import type { Metrics } from '../metrics.js';

export const REPLAY_PAGE_SIZE = 200;
/** Undelivered live events one subscription may hold before it is ended as a slow consumer. */
export const MAX_PENDING_EVENTS = 1000;
/** How many replayed ids are remembered to drop their late live duplicates (per subscription). */
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

export interface AddedRecord {
  id: string;
  createdAt: Date;
}

/** Yields matching records of `agentId` in commit order: the replay after `after`, then live ones. */
export async function* memoryAddedStream(options: {
  db: Database;
  events: MemoryEvents;
  agentId: string;
  filter: ResolvedFilter;
  after: CursorPosition | null;
  maxPending?: number;
  /** Aborted when the subscriber's token stops authenticating. */
  signal?: AbortSignal;
  metrics?: Metrics;
}): AsyncGenerator<AddedRecord> {
  const { db, events, agentId, filter } = options;
  const maxPending = options.maxPending ?? MAX_PENDING_EVENTS;
  const pending: MemoryAddedEvent[] = [];
  const waiter: { wake: (() => void) | null } = { wake: null };
  let overflow = false;

  // Listen before the replay starts, into a bounded queue, so no event is missed meanwhile.
  const stopListening = events.listen(agentId, (event) => {
    if (pending.length >= maxPending) overflow = true;
    else pending.push(event);
    waiter.wake?.();
  });

  const { signal, metrics } = options;
  metrics?.subscriptions.inc();
  const wakeOnAbort = () => waiter.wake?.();
  signal?.addEventListener('abort', wakeOnAbort);

  const seen = new Set<string>();
  const remember = (id: string) => {
    seen.add(id);
    if (seen.size > REMEMBERED_IDS) seen.delete(seen.values().next().value as string);
  };

  try {
    if (options.after) {
      let position = options.after;
      for (;;) {
        const page = await listMemoryIdsAfter(db, agentId, filter, position, REPLAY_PAGE_SIZE);
        for (const record of page) {
          remember(record.id);
          metrics?.deliveries.inc({ source: 'replay' });
          yield { id: record.id, createdAt: record.createdAt };
        }
        if (page.length < REPLAY_PAGE_SIZE) break;
        const last = page[page.length - 1]!;
        position = { createdAt: last.createdAt, id: last.id };
      }
    }
    for (;;) {
      if (signal?.aborted) {
        metrics?.drops.inc({ reason: 'revoked' });
        throw new SessionRevokedError();
      }
      if (overflow) {
        metrics?.drops.inc({ reason: 'slow_consumer' });
        throw new SlowConsumerError();
      }
      const event = pending.shift();
      if (event) {
        if (seen.has(event.id)) continue;
        const record = { id: event.id, type: event.type, createdAt: new Date(event.createdAt) };
        if (!matchesFilter(record, filter)) continue;
        // Each commit is published once, so only replayed ids need remembering.
        metrics?.deliveries.inc({ source: 'live' });
        yield record;
        continue;
      }
      await new Promise<void>((resolve) => (waiter.wake = resolve));
      waiter.wake = null;
    }
  } finally {
    metrics?.subscriptions.dec();
    signal?.removeEventListener('abort', wakeOnAbort);
    stopListening();
  }
}

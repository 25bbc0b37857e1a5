// memoryAdded (L1, L2): join the agent's feed FIRST (agent-feed.ts: every record once, in seq order,
// the agent's commit order), then replay what the client missed after its cursor up to where the
// feed stood when it joined, then continue with the feed — so delivery never skips a record, never
// repeats one, and never reorders two. Live records that arrive during the replay wait in a bounded
// buffer. A subscriber is a synchronous callback of the feed: no async pipeline per subscriber.
import type { Repeater } from 'graphql-yoga';
import type { Metrics } from '../metrics.js';
import { SessionRevokedError, SlowConsumerError } from '../domain/errors.js';
import type { Database } from '../store/db.js';
import { matchesFilter, type ResolvedFilter } from '../domain/memory-filter.js';
import { memoriesInSeqRange } from '../store/browse.js';
import { feedsOf, type FeedMember, type FeedRecord } from './agent-feed.js';
import { queuedStream } from './queued-stream.js';
import type { MemoryEvents } from './events.js';

export const REPLAY_PAGE_SIZE = 200;
/** Undelivered live records one subscription may hold before it is ended as a slow consumer. */
export const MAX_PENDING_EVENTS = 1000;

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

/** Where a subscription's records go, synchronously and in order. */
export interface AddedSink {
  next(record: AddedRecord): void;
  /** The subscription ended: stopped by its consumer (no error), or failed, revoked, too slow. */
  end(error?: unknown): void;
}

const noop = () => {};

/** One subscription: a member of its agent's feed that replays, buffers, filters and passes on. */
class Subscription implements FeedMember {
  private phase: 'starting' | 'replaying' | 'live' | 'ended' = 'starting';
  /** Every record of the agent up to this seq has been passed (delivered when it matched). */
  private last = 0;
  private readonly buffered: FeedRecord[] = [];
  private leave = noop;
  private readonly stopWatching: () => void;

  constructor(
    private readonly options: MemoryAddedOptions,
    private readonly sink: AddedSink,
  ) {
    this.stopWatching = options.watchToken?.(() => this.end(new SessionRevokedError())) ?? (() => {});
  }

  async start(): Promise<void> {
    const { options } = this;
    try {
      const joined = await feedsOf(options.db, options.events).join(options.agentId, this);
      if (this.ended) return joined.leave();
      this.leave = joined.leave;
      // Open from here on: joined to the feed, every later record will reach it.
      options.metrics?.subscriptions.inc();
      if (options.afterSeq === null) this.last = joined.from;
      else {
        this.phase = 'replaying';
        this.last = options.afterSeq;
        await this.replay(joined.from);
      }
      if (this.ended) return;
      for (const record of this.buffered) this.pass(record);
      this.buffered.length = 0;
      this.phase = 'live';
    } catch (error) {
      this.end(error);
    }
  }

  private get ended(): boolean {
    return this.phase === 'ended';
  }

  onRecord(record: FeedRecord): void {
    if (this.phase === 'live') return this.pass(record);
    if (this.phase === 'ended') return;
    this.buffered.push(record);
    if (this.buffered.length > (this.options.maxPending ?? MAX_PENDING_EVENTS))
      this.end(new SlowConsumerError(MAX_PENDING_EVENTS));
  }

  onFail(error: unknown): void {
    this.end(error);
  }

  /** Ends the subscription (`error` undefined: its consumer stopped it). */
  end(error?: unknown): void {
    if (this.phase === 'ended') return;
    this.phase = 'ended';
    const joined = this.leave !== noop;
    this.leave();
    this.stopWatching();
    const { metrics } = this.options;
    if (joined) metrics?.subscriptions.dec();
    if (error instanceof SlowConsumerError) metrics?.drops.inc({ reason: 'slow_consumer' });
    if (error instanceof SessionRevokedError) metrics?.drops.inc({ reason: 'revoked' });
    this.sink.end(error);
  }

  private pass(record: FeedRecord): void {
    if (record.seq <= this.last) return;
    this.last = record.seq;
    if (!matchesFilter(record, this.options.filter)) return;
    this.options.metrics?.deliveries.inc({ source: 'live' });
    this.sink.next({ id: record.id, createdAt: record.createdAt, seq: record.seq });
  }

  /** L2: the matching records with last < seq <= upTo, read from the database in seq order; then last = upTo. */
  private async replay(upTo: number): Promise<void> {
    const { options } = this;
    const range = { afterSeq: this.last, upToSeq: upTo };
    for await (const record of memoriesInSeqRange(
      options.db,
      options.agentId,
      options.filter,
      range,
      REPLAY_PAGE_SIZE,
    )) {
      // S6: a revoked token stops receiving mid-replay too, not only between live records.
      if (this.ended) return;
      this.last = record.seq;
      options.metrics?.deliveries.inc({ source: 'replay' });
      this.sink.next({ id: record.id, createdAt: record.createdAt, seq: record.seq });
    }
    if (upTo > this.last) this.last = upTo;
  }
}

/**
 * Matching records of `agentId` in commit order, to `sink`: the replay after `afterSeq`, then live
 * ones. Returns how to end it (with an error for the sink, or none when its consumer stopped).
 */
export function subscribeMemoryAdded(
  options: MemoryAddedOptions,
  sink: AddedSink,
): (error?: unknown) => void {
  const subscription = new Subscription(options, sink);
  void subscription.start();
  return (error) => subscription.end(error);
}

/**
 * The subscription's source as graphql-js and Yoga see it (an async iterable, used over SSE); the
 * WebSocket fan-out (fanout.ts) subscribes with a synchronous sink instead.
 */
export class MemoryAddedSource implements AsyncIterable<AddedRecord> {
  constructor(readonly options: MemoryAddedOptions) {}

  subscribe(sink: AddedSink): (error?: unknown) => void {
    return subscribeMemoryAdded(this.options, sink);
  }

  [Symbol.asyncIterator](): AsyncIterator<AddedRecord> {
    return memoryAddedStream(this.options);
  }
}

/** The records as an async iterator (queued-stream.ts: bounded, ended at once by an error). */
export function memoryAddedStream(options: MemoryAddedOptions): Repeater<AddedRecord> {
  return queuedStream<AddedRecord>(options.maxPending ?? MAX_PENDING_EVENTS, (sink) =>
    subscribeMemoryAdded(options, sink),
  );
}

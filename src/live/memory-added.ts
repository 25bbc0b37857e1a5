// memoryAdded (L1, L2): join the agent's feed FIRST (agent-feeds.ts: every record once, in seq order,
// the agent's commit order), then replay what the client missed after its cursor up to where the
// feed stood when it joined, then continue with the feed — so delivery never skips a record, never
// repeats one, and never reorders two. Live records that arrive during the replay wait in a bounded
// buffer. A subscriber is a synchronous callback of the feed: no async pipeline per subscriber —
// except for a search (`text`), which only the database can match: such a subscriber keeps the
// records that pass the rest of its filter in seq order until their answers came (record-search.ts).
import type { Repeater } from 'graphql-yoga';
import type { Metrics } from '../metrics.js';
import { SessionRevokedError, SlowConsumerError } from '../domain/errors.js';
import type { Database } from '../store/db.js';
import { matchesFilter, type ResolvedFilter } from '../domain/memory-filter.js';
import { memoriesInSeqRange } from '../store/browse.js';
import type { AgentFeeds, FeedMember, FeedRecord } from './agent-feeds.js';
import { queuedStream } from './queued-stream.js';

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
  /** The server's feeds: every subscription of an agent joins the same one. */
  feeds: AgentFeeds;
  agentId: string;
  filter: ResolvedFilter;
  /** The clock a freshness filter is evaluated by when a record arrives (default: the system clock). */
  now?: () => Date;
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
const systemClock = () => new Date();

/** A record that passed the filter but its search, until the database answered (null: not yet). */
interface Searched {
  record: FeedRecord;
  matched: boolean | null;
}

/** One subscription: a member of its agent's feed that replays, buffers, filters and passes on. */
class Subscription implements FeedMember {
  private phase: 'starting' | 'replaying' | 'live' | 'ended' = 'starting';
  /** Every record of the agent up to this seq has been passed (delivered when it matched). */
  private last = 0;
  private readonly buffered: FeedRecord[] = [];
  /** Records awaiting their search answer, in seq order; delivered in that order. */
  private readonly searched: Searched[] = [];
  private leave = noop;
  private readonly stopWatching: () => void;
  private readonly now: () => Date;
  readonly searches: boolean;
  /** Records of other types never reach it (its feed offers each record to those that can match). */
  readonly types: readonly string[] | null;

  constructor(
    private readonly options: MemoryAddedOptions,
    private readonly sink: AddedSink,
  ) {
    this.now = options.now ?? systemClock;
    this.searches = options.filter.text !== null;
    this.types = options.filter.types;
    this.stopWatching = options.watchToken?.(() => this.end(new SessionRevokedError())) ?? (() => {});
  }

  async start(): Promise<void> {
    const { options } = this;
    try {
      const joined = await options.feeds.join(options.agentId, this);
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
    if (this.buffered.length > this.maxPending) this.end(new SlowConsumerError(MAX_PENDING_EVENTS));
  }

  private get maxPending(): number {
    return this.options.maxPending ?? MAX_PENDING_EVENTS;
  }

  onFail(error: unknown): void {
    this.end(error);
  }

  /** Ends the subscription (`error` undefined: its consumer stopped it). */
  end(error?: unknown): void {
    if (this.phase === 'ended') return;
    this.phase = 'ended';
    this.searched.length = 0;
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
    const { filter } = this.options;
    if (!matchesFilter(record, filter, this.now)) return;
    if (filter.text === null) return this.deliverLive(record);
    this.search(record, filter.text);
  }

  private deliverLive(record: FeedRecord): void {
    this.options.metrics?.countDelivery('live');
    this.sink.next({ id: record.id, createdAt: record.createdAt, seq: record.seq });
  }

  /** Asks the database whether `record` matches `text`; records are delivered in seq order as answers come. */
  private search(record: FeedRecord, text: string): void {
    // The feed gives every record a search while a member searches (this one joined before it).
    if (!record.search) return this.end(new Error(`record ${record.seq} reached a search without one`));
    if (this.searched.length >= this.maxPending) return this.end(new SlowConsumerError(MAX_PENDING_EVENTS));
    const entry: Searched = { record, matched: null };
    this.searched.push(entry);
    record.search.matches(text).then(
      (matched) => {
        entry.matched = matched;
        this.releaseSearched();
      },
      (error: unknown) => this.end(error),
    );
  }

  /** Delivers the answered records at the head of the queue, up to the first still unanswered. */
  private releaseSearched(): void {
    while (this.searched[0]?.matched != null) {
      const { record, matched } = this.searched.shift()!;
      if (matched) this.deliverLive(record);
    }
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
      options.metrics?.countDelivery('replay');
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

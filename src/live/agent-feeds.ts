// One ordered feed of an agent's records per process, shared by all its subscribers (L2): the
// events of its records in seq order (the agent's commit order), each once, with no gap. An event
// that overtakes an earlier seq is held until the earlier ones arrive, and read from the database
// (committed rows only) if they do not within GAP_WAIT_MS; after a lost cross-instance link (L3)
// the feed reads everything committed since. Ordering is done once per agent here, so a delivery
// to each subscriber is a synchronous call, not an async pipeline per subscriber.
import { EVERY_RECORD } from '../domain/memory-filter.js';
import type { Database } from '../store/db.js';
import { committedSeq, memoriesInSeqRange, type SequencedMemory } from '../store/browse.js';
import type { MemoryAddedEvent, MemoryEvents } from './events.js';
import { RecordSearch } from './record-search.js';

/** How long an event waits for the events of earlier seqs before they are read from the database. */
export const GAP_WAIT_MS = 50;
/** Rows per read when the feed fills a gap from the database. */
const FILL_PAGE_SIZE = 500;

/** One record of the agent, in commit order, with its filter facts. */
export interface FeedRecord extends SequencedMemory {
  /** Answers search texts about the record (one statement per turn); null while no member searches. */
  search: RecordSearch | null;
}

export interface FeedMember {
  /** The member's filter has `text`: the records it gets need a `search`. */
  readonly searches: boolean;
  /** The only types the member can match (its filter's), or null for any: no other type reaches it. */
  readonly types: readonly string[] | null;
  /** The next record of the agent (every one, in seq order, without gaps). */
  onRecord(record: FeedRecord): void;
  /** The feed could not read the database: it has ended; resume from the last record delivered. */
  onFail(error: unknown): void;
}

class AgentFeed {
  /** Every record up to this seq has been passed to the members; -1 until the start is known. */
  private last = -1;
  private readonly held = new Map<number, MemoryAddedEvent>();
  private readonly members = new Set<FeedMember>();
  /**
   * The members by what they can match: a record is offered to those of any type and those of its
   * own, not to every member (5,000 watchers of another type cost a call each per record otherwise).
   */
  private readonly anyType = new Set<FeedMember>();
  private readonly byType = new Map<string, Set<FeedMember>>();
  /** Members that search (see FeedMember.searches). */
  private searching = 0;
  private joining = 0;
  private timer: NodeJS.Timeout | undefined;
  /** The database reads (the start, gap fills), one after another. */
  private reading: Promise<void> = Promise.resolve();
  private readonly started: Promise<void>;
  private failure: { error: unknown } | null = null;
  private ended = false;
  private readonly stopListening: () => void;

  constructor(
    private readonly db: Database,
    events: MemoryEvents,
    private readonly agentId: string,
    private readonly onEnd: () => void,
  ) {
    // Listening first: whatever commits above the start arrives live (or is read at a gap).
    this.stopListening = events.listen(
      agentId,
      (event) => this.receive(event),
      () => void this.read(async () => this.fill(await committedSeq(this.db, this.agentId))),
    );
    this.started = this.read(async () => {
      this.last = await committedSeq(db, agentId);
      this.releaseHeld();
    });
  }

  /**
   * Adds a member once the feed has started; resolves to the seq the member continues from (every
   * record up to it was passed before it joined, every later one will reach it).
   */
  async join(member: FeedMember): Promise<number> {
    this.joining++;
    try {
      await this.started;
    } finally {
      this.joining--;
    }
    if (this.failure) throw this.failure.error;
    this.members.add(member);
    if (member.types === null) this.anyType.add(member);
    else
      for (const type of member.types) {
        const members = this.byType.get(type) ?? new Set<FeedMember>();
        this.byType.set(type, members.add(member));
      }
    if (member.searches) this.searching++;
    return this.last;
  }

  leave(member: FeedMember): void {
    if (this.members.delete(member)) {
      if (member.searches) this.searching--;
      this.anyType.delete(member);
      for (const type of member.types ?? []) {
        const members = this.byType.get(type);
        if (members?.delete(member) && members.size === 0) this.byType.delete(type);
      }
    }
    if (this.members.size === 0 && this.joining === 0) this.end();
  }

  private receive(event: MemoryAddedEvent): void {
    if (this.ended || (this.last >= 0 && event.seq <= this.last)) return; // a duplicate
    this.held.set(event.seq, event);
    if (this.last >= 0) this.releaseHeld(); // else released when the start is known
  }

  /** A search for the record when a member searches (so a feed without searches allocates none). */
  private searchFor(id: string): RecordSearch | null {
    return this.searching > 0 ? new RecordSearch(this.db, this.agentId, id) : null;
  }

  private emit(record: FeedRecord): void {
    this.last = record.seq;
    for (const member of this.anyType) member.onRecord(record);
    const typed = this.byType.get(record.type);
    if (typed) for (const member of typed) member.onRecord(record);
  }

  /** Passes the held events that continue `last` without a gap; arms the gap clock for the rest. */
  private releaseHeld(): void {
    for (let event = this.held.get(this.last + 1); event; event = this.held.get(this.last + 1)) {
      this.held.delete(event.seq);
      this.emit({
        id: event.id,
        type: event.type,
        createdAt: new Date(event.createdAt),
        seq: event.seq,
        instruments: event.instruments,
        producerId: event.producerId,
        runKind: event.runKind,
        expiresAt: event.expiresAt === null ? null : new Date(event.expiresAt),
        search: this.searchFor(event.id),
      });
    }
    for (const seq of this.held.keys()) if (seq <= this.last) this.held.delete(seq);
    if (this.held.size === 0) {
      clearTimeout(this.timer);
      this.timer = undefined;
    } else {
      // The held events committed, so every seq below them has too: read the missing ones.
      this.timer ??= setTimeout(() => {
        this.timer = undefined;
        // Decided when the read runs: a read queued before it may have filled the gap already (and an
        // empty hold has no minimum: the range would end at Infinity, which PostgreSQL refuses).
        if (this.held.size)
          void this.read(async () => {
            if (this.held.size) await this.fill(Math.min(...this.held.keys()) - 1);
          });
      }, GAP_WAIT_MS);
    }
  }

  /** Passes every record with last < seq <= upTo from the database (committed), then the held ones. */
  private async fill(upTo: number): Promise<void> {
    const range = { afterSeq: this.last, upToSeq: upTo };
    if (range.afterSeq < upTo) {
      for await (const row of memoriesInSeqRange(
        this.db,
        this.agentId,
        EVERY_RECORD,
        range,
        FILL_PAGE_SIZE,
      )) {
        if (this.ended) return;
        // Live events released while a page was read may already have passed the row.
        if (row.seq > this.last) this.emit({ ...row, search: this.searchFor(row.id) });
      }
    }
    if (upTo > this.last) this.last = upTo;
    this.releaseHeld();
  }

  /** Runs database reads one after another; a failed one ends the feed and every member's stream. */
  private read(step: () => Promise<void>): Promise<void> {
    this.reading = this.reading
      .then(() => (this.ended ? undefined : step()))
      .catch((error: unknown) => {
        if (this.ended) return;
        this.failure = { error };
        const members = [...this.members];
        this.end();
        for (const member of members) member.onFail(error);
      });
    return this.reading;
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.timer);
    this.held.clear();
    this.members.clear();
    this.anyType.clear();
    this.byType.clear();
    this.searching = 0;
    this.stopListening();
    this.onEnd();
  }
}

/**
 * The feeds of one server (createServer makes one over its event bus), one per agent with
 * subscribers; a feed ends with its last member.
 */
export class AgentFeeds {
  private readonly feeds = new Map<string, AgentFeed>();

  constructor(
    private readonly db: Database,
    private readonly events: MemoryEvents,
  ) {}

  /** How many agents' feeds are open (nothing is left once every subscription ended). */
  get size(): number {
    return this.feeds.size;
  }

  /** Joins the agent's feed (started on first use); resolves to the seq the member continues from. */
  async join(agentId: string, member: FeedMember): Promise<{ from: number; leave: () => void }> {
    let feed = this.feeds.get(agentId);
    if (!feed) {
      const created: AgentFeed = new AgentFeed(this.db, this.events, agentId, () => {
        if (this.feeds.get(agentId) === created) this.feeds.delete(agentId);
      });
      feed = created;
      this.feeds.set(agentId, feed);
    }
    const joined = feed;
    const from = await joined.join(member);
    return { from, leave: () => joined.leave(member) };
  }
}

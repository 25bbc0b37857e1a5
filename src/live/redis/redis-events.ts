// Memory events across instances over Redis pub/sub (L3) that survive Redis outages: local
// subscribers are served in-process whatever Redis does, a failed publish never fails or crashes
// a write, and after an outage every instance is told to catch up from the database (L2). The wire
// is one Redis or a Redis Cluster (redis-wire.ts, cluster-wire.ts, D4).
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../logger.js';
import {
  createMemoryEvents,
  eventOf,
  type GapListener,
  type CommittedMemory,
  type MemoryAddedEvent,
  type MemoryAddedListener,
  type MemoryEvents,
  type RunChangedEvent,
  type RunChangedListener,
} from '../events.js';
import { RESYNC_CHANNEL, type RedisWire, type WireFactory } from './redis-wire.js';

const TOPIC_PREFIX = 'memory:added:';
const topicOf = (agentId: string) => `${TOPIC_PREFIX}${agentId}`;
/** While publishes fail, how often a resync is tried (the link may come back without a `ready`, e.g. a cluster node). */
export const RESYNC_RETRY_MS = 1000;
const PUBLISH_WARN_EVERY_MS = 60_000;
/** A resync names at most this many agents; beyond, it names none and every feed catches up. */
const RESYNC_MAX_AGENTS = 1000;

interface WireEvent extends MemoryAddedEvent {
  origin: string;
  /** A run change travels on its agent's channel too (an earlier version reads it as a gap and catches up). */
  run?: RunChangedEvent;
}

function isRunChanged(run: unknown): run is RunChangedEvent {
  const r = run as Partial<RunChangedEvent> | null;
  return typeof r?.runId === 'string' && typeof r.agentId === 'string' && typeof r.status === 'string';
}
interface ResyncMessage {
  origin: string;
  /**
   * Records created from then on may not have been published. Receivers catch up from their last
   * seq whatever it says; it stays on the wire for instances of earlier versions, which read it.
   */
  since: string;
  /** The agents whose records may not have been published; absent: any agent (earlier versions send none). */
  agents?: string[];
}

/** Whether an event carries what matchesFilter reads (events of earlier versions do not). */
function hasFilterFacts(event: Partial<MemoryAddedEvent>): boolean {
  return (
    Array.isArray(event.instruments) &&
    event.instruments.every((id) => typeof id === 'string') &&
    event.producerId !== undefined &&
    event.runKind !== undefined &&
    (event.expiresAt === null || typeof event.expiresAt === 'string')
  );
}

export function createRedisMemoryEvents(options: { wire: WireFactory; logger: Logger }): MemoryEvents {
  return new RedisMemoryEvents(options.wire, options.logger);
}

class RedisMemoryEvents implements MemoryEvents {
  private readonly origin = randomUUID();
  private readonly local = createMemoryEvents();
  private readonly wire: RedisWire;
  /** Redis channels this instance needs, with how many local listeners need each. */
  private readonly wanted = new Map<string, number>();
  /** By agent: a gap of one agent (an event it cannot use) concerns only that agent's feed. */
  private readonly gapListeners = new Map<string, Set<GapListener>>();
  /** When the first unpublished record was created (null: every publish arrived). */
  private publishFailedSince: Date | null = null;
  /** The agents of the unpublished records. */
  private unpublishedAgents = new Set<string>();
  private resyncTimer: NodeJS.Timeout | undefined;
  /** When a failed publish was last logged (a lost cluster node fails its agents' publishes for as long as it is away). */
  private publishWarnedAt = -Infinity;
  private closing = false;

  constructor(
    wire: WireFactory,
    private readonly logger: Logger,
  ) {
    this.wire = wire({
      message: (channel, message) => this.receive(channel, message),
      resubscribed: (channels) => {
        if (!channels) return this.signalGap();
        for (const channel of channels) this.signalGap(channel.slice(TOPIC_PREFIX.length));
      },
      publishLinkBack: () => this.publishResync(),
    });
  }

  async publishMemoryAdded(memory: CommittedMemory) {
    await this.local.publishMemoryAdded(memory);
    const wire: WireEvent = { ...eventOf(memory), origin: this.origin };
    // Not awaited: the write is committed and answered whether Redis is up or not.
    this.wire.publishEvent(topicOf(memory.agentId), JSON.stringify(wire)).catch((err: unknown) => {
      if (Date.now() - this.publishWarnedAt >= PUBLISH_WARN_EVERY_MS) {
        this.publishWarnedAt = Date.now();
        this.logger.warn({ err }, 'redis publish failed: other instances will catch up');
      }
      this.unpublished(memory.createdAt, [memory.agentId]);
    });
  }

  async publishRunChanged(event: RunChangedEvent) {
    await this.local.publishRunChanged(event);
    const wire = JSON.stringify({ origin: this.origin, run: event });
    // Not awaited, never fails the mutation: a lost run change only delays a page's refresh.
    this.wire.publishEvent(topicOf(event.agentId), wire).catch((err: unknown) => {
      this.logger.warn({ err }, 'redis publish of a run change failed');
    });
  }

  listenRuns(agentId: string, listener: RunChangedListener): () => void {
    const stopLocal = this.local.listenRuns(agentId, listener);
    const release = this.want(topicOf(agentId));
    return () => {
      stopLocal();
      release();
    };
  }

  /** Keeps the Redis channel subscribed while one local listener needs it; returns its release (idempotent). */
  private want(topic: string): () => void {
    const count = this.wanted.get(topic) ?? 0;
    this.wanted.set(topic, count + 1);
    if (count === 0) this.wire.addChannel(topic);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.wanted.get(topic) ?? 1) - 1;
      if (left > 0) return void this.wanted.set(topic, left);
      this.wanted.delete(topic);
      this.wire.removeChannel(topic);
    };
  }

  listen(agentId: string, listener: MemoryAddedListener, onGap?: GapListener): () => void {
    const stopLocal = this.local.listen(agentId, listener);
    const release = this.want(topicOf(agentId));
    if (onGap) {
      const forAgent = this.gapListeners.get(agentId) ?? new Set<GapListener>();
      this.gapListeners.set(agentId, forAgent.add(onGap));
    }
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      stopLocal();
      const forAgent = this.gapListeners.get(agentId);
      if (onGap && forAgent?.delete(onGap) && forAgent.size === 0) this.gapListeners.delete(agentId);
      release();
    };
  }

  async close() {
    this.closing = true;
    clearTimeout(this.resyncTimer);
    await this.local.close();
    this.wire.close();
  }

  private receive(channel: string, message: string): void {
    let event: WireEvent & ResyncMessage;
    try {
      event = JSON.parse(message) as WireEvent & ResyncMessage;
    } catch {
      return;
    }
    if (event.origin === this.origin) return; // already delivered locally
    if (channel === RESYNC_CHANNEL) return this.resyncReceived(event.agents);
    if (event.run !== undefined) {
      if (isRunChanged(event.run)) void this.local.publishRunChanged(event.run);
      return;
    }
    // An instance of an older version sends no seq, or not the filter facts (a rolling upgrade): the
    // agent's feed reads the record from the database instead, facts and all (L2), and drops the event.
    if (!Number.isSafeInteger(event.seq) || !hasFilterFacts(event))
      return this.signalGap(channel.slice(TOPIC_PREFIX.length));
    void this.local.publishMemoryAdded({
      ...event,
      createdAt: new Date(event.createdAt),
      expiresAt: event.expiresAt === null ? null : new Date(event.expiresAt),
    });
  }

  private resyncReceived(agents: unknown): void {
    if (!Array.isArray(agents) || !agents.every((id) => typeof id === 'string')) return this.signalGap();
    for (const agentId of agents) this.signalGap(agentId);
  }

  /** Tells the feeds of `agentId` (of every agent when absent) to catch up from the database. */
  private signalGap(agentId?: string): void {
    const listeners =
      agentId === undefined
        ? [...this.gapListeners.values()].flatMap((forAgent) => [...forAgent])
        : [...(this.gapListeners.get(agentId) ?? [])];
    for (const onGap of listeners) onGap();
  }

  /** Records of `agents` created from `since` on may not have reached other instances: resync soon. */
  private unpublished(since: Date, agents: Iterable<string>): void {
    if (!this.publishFailedSince || since < this.publishFailedSince) this.publishFailedSince = since;
    for (const agentId of agents) this.unpublishedAgents.add(agentId);
    if (this.closing || this.resyncTimer) return;
    this.resyncTimer = setTimeout(() => {
      this.resyncTimer = undefined;
      this.publishResync();
    }, RESYNC_RETRY_MS);
    this.resyncTimer.unref();
  }

  private publishResync(): void {
    const since = this.publishFailedSince;
    if (!since || this.closing) return;
    const agents = this.unpublishedAgents;
    this.publishFailedSince = null;
    this.unpublishedAgents = new Set();
    const resync: ResyncMessage = {
      origin: this.origin,
      since: since.toISOString(),
      ...(agents.size <= RESYNC_MAX_AGENTS ? { agents: [...agents] } : {}),
    };
    this.wire.publishResync(JSON.stringify(resync)).catch(() => this.unpublished(since, agents));
  }
}

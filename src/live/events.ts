// Post-commit "memory added" events over an EventTarget, in-process; with several instances
// redis-events.ts bridges them over Redis pub/sub (L3). Each instance adds one
// target listener per agent and fans out to its local subscribers itself (no per-subscriber queue
// objects in the hot path).
import type { RunKind, RunStatus } from '../domain/types.js';
import type { SequencedMemory } from '../store/browse.js';

/** An event as it travels (JSON on the Redis wire): the record's place and its filter facts. */
export interface MemoryAddedEvent {
  id: string;
  agentId: string;
  type: string;
  createdAt: string;
  /** The record's place in its agent's commit order (L2): subscribers deliver in seq order, without gaps. */
  seq: number;
  /** What matchesFilter reads besides type and createdAt (L1: subscribers filter without a read). */
  instruments: readonly string[];
  producerId: string | null;
  runKind: RunKind | null;
  expiresAt: string | null;
}

/** What a writer announces once its record has committed: its place and filter facts, and its agent. */
export type CommittedMemory = SequencedMemory & { agentId: string };

/** The event of a committed record. */
export function eventOf(memory: CommittedMemory): MemoryAddedEvent {
  return {
    id: memory.id,
    agentId: memory.agentId,
    type: memory.type,
    createdAt: memory.createdAt.toISOString(),
    seq: memory.seq,
    instruments: memory.instruments,
    producerId: memory.producerId,
    runKind: memory.runKind,
    expiresAt: memory.expiresAt?.toISOString() ?? null,
  };
}

export type MemoryAddedListener = (event: MemoryAddedEvent) => void;
/**
 * Events may have been missed (the cross-instance link was down): the listener catches up from the
 * last seq it passed (L2), whenever the lost ones were written.
 */
export type GapListener = () => void;

/** B7: a run started or finished (its status says which), after the change committed. */
export interface RunChangedEvent {
  runId: string;
  agentId: string;
  status: RunStatus;
}
export type RunChangedListener = (event: RunChangedEvent) => void;

export interface MemoryEvents {
  /** Call only after the write committed. */
  publishMemoryAdded(memory: CommittedMemory): Promise<void>;
  /** Call only after the run's start or finish committed. */
  publishRunChanged(event: RunChangedEvent): Promise<void>;
  /** Calls `listener` for each run change of `agentId` until the returned function is called. */
  listenRuns(agentId: string, listener: RunChangedListener): () => void;
  /** Calls `listener` for each event of `agentId`, and `onGap` after a possible loss, until the returned function is called. */
  listen(agentId: string, listener: MemoryAddedListener, onGap?: GapListener): () => void;
  close(): Promise<void>;
}

const topicOf = (agentId: string) => `memory:added:${agentId}`;
const runTopicOf = (agentId: string) => `run:changed:${agentId}`;

export function createMemoryEvents(
  eventTarget: EventTarget = new EventTarget(),
  closeTarget: () => Promise<void> = async () => {},
): MemoryEvents {
  const local = new Map<string, { listeners: Set<MemoryAddedListener>; dispatch: (event: Event) => void }>();
  return {
    async publishMemoryAdded(memory) {
      eventTarget.dispatchEvent(new CustomEvent(topicOf(memory.agentId), { detail: eventOf(memory) }));
    },
    async publishRunChanged(event) {
      eventTarget.dispatchEvent(new CustomEvent(runTopicOf(event.agentId), { detail: event }));
    },
    // Run changes are rare (a few a minute per agent): one target listener per subscriber is enough.
    listenRuns(agentId, listener) {
      const dispatch = (event: Event) => listener((event as CustomEvent<RunChangedEvent>).detail);
      eventTarget.addEventListener(runTopicOf(agentId), dispatch);
      return () => eventTarget.removeEventListener(runTopicOf(agentId), dispatch);
    },
    listen(agentId, listener) {
      const topic = topicOf(agentId);
      let entry = local.get(topic);
      if (!entry) {
        const listeners = new Set<MemoryAddedListener>();
        const dispatch = (event: Event) => {
          const detail = (event as CustomEvent<MemoryAddedEvent>).detail;
          for (const deliver of listeners) deliver(detail);
        };
        entry = { listeners, dispatch };
        local.set(topic, entry);
        eventTarget.addEventListener(topic, dispatch);
      }
      entry.listeners.add(listener);
      const current = entry;
      return () => {
        current.listeners.delete(listener);
        if (current.listeners.size === 0 && local.get(topic) === current) {
          local.delete(topic);
          eventTarget.removeEventListener(topic, current.dispatch);
        }
      };
    },
    close: closeTarget,
  };
}

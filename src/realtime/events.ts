// Post-commit "memory added" events. Single instance: Yoga's in-process pub/sub. Several instances
// (L3): the same pub/sub over Redis through @graphql-yoga/redis-event-target.
import { setMaxListeners } from 'node:events';
import { createPubSub, type PubSub } from 'graphql-yoga';
import type { TypedEventTarget } from '@graphql-yoga/typed-event-target';

export interface MemoryAddedEvent {
  id: string;
  agentId: string;
  type: string;
  createdAt: string;
}

type Channels = { 'memory:added': [agentId: string, event: MemoryAddedEvent] };

export interface MemoryEvents {
  /** Call only after the write committed. */
  publishMemoryAdded(memory: { id: string; agentId: string; type: string; createdAt: Date }): Promise<void>;
  subscribe(agentId: string): AsyncIterable<MemoryAddedEvent>;
  close(): Promise<void>;
}

export function createMemoryEvents(
  eventTarget?: TypedEventTarget<CustomEvent>,
  closeTarget: () => Promise<void> = async () => {},
): MemoryEvents {
  // Every subscriber is a listener: thousands per agent are expected, not a leak.
  const target = eventTarget ?? new EventTarget();
  if (target instanceof EventTarget) setMaxListeners(0, target);
  const pubsub: PubSub<Channels> = createPubSub<Channels>({
    eventTarget: target as TypedEventTarget<CustomEvent>,
  });
  return {
    async publishMemoryAdded(memory) {
      pubsub.publish('memory:added', memory.agentId, {
        id: memory.id,
        agentId: memory.agentId,
        type: memory.type,
        createdAt: memory.createdAt.toISOString(),
      });
    },
    subscribe: (agentId) => pubsub.subscribe('memory:added', agentId),
    close: closeTarget,
  };
}

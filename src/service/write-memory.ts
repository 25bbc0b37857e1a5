// The one write use case (W1–W9, X1–X6) behind GraphQL, REST and the coming MCP tools: store the
// record, announce it once it has committed, and count the outcome.
import type { RunIdentity } from '../auth/caller.js';
import type { Metrics } from '../metrics.js';
import type { MemoryEvents } from '../realtime/events.js';
import type { Database } from '../store/db.js';
import { StoreError } from '../store/errors.js';
import { createMemory, type CreateMemoryInput, type WrittenMemory } from '../store/memories.js';

export interface WriteDeps {
  db: Database;
  events: MemoryEvents;
  metrics?: Metrics;
  now: () => Date;
}

export type WriteTransport = 'graphql' | 'rest' | 'mcp';

export async function writeMemory(
  deps: WriteDeps,
  run: RunIdentity,
  input: CreateMemoryInput,
  transport: WriteTransport,
): Promise<WrittenMemory> {
  let written: WrittenMemory;
  try {
    written = await createMemory(deps.db, run, input, deps.now());
  } catch (error) {
    deps.metrics?.writes.inc({
      transport,
      code: error instanceof StoreError ? error.code : 'internal_error',
    });
    throw error;
  }
  deps.metrics?.writes.inc({ transport, code: written.created ? 'created' : 'retried' });
  // An idempotent retry (W8) announces nothing: its record was announced when it was written.
  if (written.created) await deps.events.publishMemoryAdded(written);
  return written;
}

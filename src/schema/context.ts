import type { Caller } from '../auth/caller.js';
import type { Database } from '../store/db.js';
import type { MemoryEvents } from '../realtime/events.js';
import type { SharedLoads } from '../realtime/shared-loads.js';
import type { TokenSessions } from '../realtime/sessions.js';
import type { Metrics } from '../metrics.js';

/** Built once per request (HTTP) or per connection (WebSocket). */
export interface GraphQLContext {
  db: Database;
  caller: Caller | null;
  /** Why a sent token was refused (null when none was sent). */
  authFailure: string | null;
  events: MemoryEvents;
  /** Per-process cache that lets subscribers share the read of a new record. */
  sharedLoads: SharedLoads;
  /** Open sessions per token: revocation ends them (S6, L4). */
  sessions: TokenSessions;
  metrics: Metrics;
  now: () => Date;
}

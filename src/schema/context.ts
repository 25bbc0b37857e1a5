import type { Caller } from '../auth/caller.js';
import type { Database } from '../store/db.js';
import type { MemoryEvents } from '../realtime/events.js';

/** Built once per request (HTTP) or per connection (WebSocket). */
export interface GraphQLContext {
  db: Database;
  caller: Caller | null;
  /** Why a sent token was refused (null when none was sent). */
  authFailure: string | null;
  events: MemoryEvents;
  now: () => Date;
}

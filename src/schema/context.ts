import type { AuthFailure, Caller } from '../auth/caller.js';
import type { RequestCaller } from '../auth/request-caller.js';
import type { Database } from '../store/db.js';
import type { MemoryEvents } from '../live/events.js';
import type { AgentFeeds } from '../live/agent-feeds.js';
import type { SharedLoads } from '../live/shared-loads.js';
import type { TokenSessions } from '../live/token-sessions.js';
import type { Metrics } from '../metrics.js';
import type { ReadBudget } from '../service/read-budget.js';

/** Built once per request (HTTP) or per connection (WebSocket). */
export interface GraphQLContext {
  /** This request's reads: cancelled when the client goes away or the answer is complete (S9). */
  db: Database;
  /**
   * The process's database for live delivery: a record's read is shared by every subscriber of its
   * group, so no one subscriber's end may cancel it.
   */
  liveDb: Database;
  /** S8: the per-token count of expensive reads. */
  budget: ReadBudget;
  /** Aborted when nobody waits for this request's answer any more (S9). */
  signal: AbortSignal;
  /** The operation's answer is complete: its reads still running are cancelled (S9). */
  endRequest(): void;
  /** S8: an MCP list call (the MCP tools' `x-mcp-list-call` header): counted as expensive. */
  mcpListCall: boolean;
  /** This request's caller: resolved once; a remembered token's liveness read at most once (the `live` scope). */
  auth: RequestCaller;
  /** `auth.caller`: `unverified` while a remembered token's liveness is unread. */
  caller: Caller | null;
  /** Why a sent token was refused (null when none was sent). */
  authFailure: AuthFailure | null;
  events: MemoryEvents;
  /** The server's live feeds, one per agent with subscribers (memoryAdded). */
  feeds: AgentFeeds;
  /** Per-process cache that lets subscribers share the read of a new record. */
  sharedLoads: SharedLoads;
  /** Open sessions per token: revocation ends them (S6, L4). */
  sessions: TokenSessions;
  metrics: Metrics;
  now: () => Date;
}

// What the tools teach an agent (the seed's protocol, §2 W, §3 X, §5 T): tool descriptions and the
// recovery advice that goes with each typed failure.
import type { ToolFailure } from './shapes.js';

export const SERVER_INSTRUCTIONS = [
  'Memory of one trading agent. Your bearer token decides who you are and which tools you see.',
  'Copy ids unchanged from tool results; never guess or shorten one.',
  'The service stamps expiry: read expires_at from results instead of computing deadlines.',
  'A write that fails with invalid_memory_link: call get_trading_context again, repair only the named link, retry once.',
].join('\n');

export const DESCRIPTIONS = {
  write_memory: `Store one immutable record for this run (provenance comes from your token).
- scope AGENT: no instruments. INSTRUMENTS: 1-32 exact canonical names this agent selects (ETH, kPEPE; no -PERP).
- Expiry is stamped by the service. Analysis runs: metadata.stale_after and expiry_policy are overwritten and valid_for_seconds removed; read expires_at from the result. Trading/Review runs may set metadata.stale_after (ISO instant) or valid_for_seconds.
- Reserved types: trading_decision (Trading runs only); review and agent_learnings (Review runs only).
- Links: copy target_memory_id unchanged from get_trading_context or get_memory; never guess. A correction links the exact original with link_type "corrects".
- Trading runs: one trading_decision per evaluated instrument (no-trade included) linking every considered record (link_type "considered", corrections too); an opening order cites the returned memory_id. If the decision cannot be written, reduce risk only.
- Failures come back with isError and code: invalid_memory_link → refetch context, repair only links[link_index], retry once; invalid_memory_target → fix only instruments[instrument_index]; validation_error → fix field. Send an idempotency_key so a retry after a timeout never stores twice.`,
  get_trading_context: `The trading context of one instrument: the latest Analysis research per producer, type and scope.
FRESH entries come first with their full research; STALE and DISABLED ones are stubs without content (do not act on them).
corrections lists records that correct others (link_type "corrects") with their status; learnings are the agent's durable lessons.
at (ISO instant, default now) shows what was known then. Copy memory_id values unchanged when you link them.`,
  list_memories: `Records of this agent, newest first, filtered by types and time window before paging.
At most 50 per page (default 10): continue with after = page_info.end_cursor and the same types and window while has_next_page.
window 1h/6h/24h, or from_date/to_date (YYYY-MM-DD, inclusive local dates) with time_zone (IANA, default UTC).`,
  list_memory_types: `The memory types stored for this agent with their counts, custom Analysis types included.
With a window (1h/6h/24h, or from_date/to_date with time_zone) only types that have records in it.`,
  get_memory: `One record by id, copied unchanged from a context, list or audit.
An unknown id and an id you may not read give the same not_found result. Trading runs read only their own trading decisions.`,
  get_decision_audit: `Audit one trading decision: the decision, every record it links, and the trading context as of its
created_at for each instrument it targets (what was known when). not_found unless the id is a readable trading_decision.`,
  get_producer_health: `Health of this agent's producers over the last window (default 24h): status HEALTHY, LATE, MISSING, DISABLED or UNSCHEDULED, missed cycles (newest 5), p95 lateness, records stale on arrival, failed runs.`,
} as const;

/** What the agent should do next, by failure code (W4 recovery: one repaired retry, never a guessed id). */
export function adviceFor(failure: ToolFailure): string {
  switch (failure.code) {
    case 'invalid_memory_link':
      return `Call get_trading_context again, replace only links[${failure.link_index}] with an id copied unchanged from it (or drop that link), and retry once. Never guess ids.`;
    case 'invalid_memory_target':
      return `instruments[${failure.instrument_index}] is not an active instrument this agent selects: fix only that entry (exact canonical name, e.g. ETH or kPEPE) and retry once.`;
    case 'validation_error':
      return `Fix ${failure.field ?? 'the arguments'} and retry once.`;
    case 'reserved_memory_type':
      return 'This type is reserved for another run kind (trading_decision: Trading; review, agent_learnings: Review). Do not retry it; use a type your run may write.';
    case 'idempotency_conflict':
      return 'This idempotency_key was already used with different input: resend the identical input, or use a new key for a new record.';
    case 'not_found':
      return 'Copy the id unchanged from a tool result; never guess one.';
    case 'query_timeout':
      return 'The read was too expensive: narrow it (a shorter window, types, rarer search words) before retrying once.';
    case 'rate_limited':
      return 'Too many searches or lists at once for this token: wait for the ones running to answer, then retry once.';
    default:
      return 'Do not retry unchanged.';
  }
}

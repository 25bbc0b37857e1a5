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
  write_memory: `Store one immutable record of this run (provenance is your token's).
- scope AGENT: no instruments; INSTRUMENTS: 1-32 exact names from list_instruments.
- Expiry is the service's. Analysis runs: expires_at is stamped. Trading/Review runs: set metadata.valid_for_seconds (or stale_after, ISO); without, the record NEVER expires (never_expires: true): give each trading_decision valid_for_seconds.
- Reserved: trading_decision (Trading runs), review and agent_learnings (Review runs).
- Links: copy target_memory_id unchanged from a result, never guess; a correction links its original as "corrects".
- Trading: one trading_decision per evaluated instrument (no-trade too) linking each record considered ("considered"); orders cite its memory_id. If it cannot be written, only reduce risk.
- isError codes: invalid_memory_link: get_trading_context again, repair only links[link_index], retry once. invalid_memory_target: pick from selected. validation_error: fix field. An idempotency_key makes a retry safe.`,
  list_instruments: `Your selected instruments (the only write targets) and the active catalog, by the venue's exact case-sensitive names: BTC, kPEPE, xyz:TSLA.`,
  get_trading_context: `The latest Analysis research per producer and type for one instrument: FRESH entries first, with research; STALE and DISABLED are stubs, do not act on them. Also corrections and learnings; at: as known then.`,
  list_memories: `This agent's records, newest first, filtered before paging (≤ 50 a page). Next page: after = page_info.end_cursor, same filters.`,
  list_memory_types: `The memory types stored, with counts (a window: only types with records in it).`,
  get_memory: `One record by id; unknown and unreadable ids answer the same not_found. Trading runs read only their decisions.`,
  get_decision_audit: `A trading decision, what it links, and each target's context as of its created_at; else not_found.`,
  get_producer_health: `This agent's producers over a window (default 24h): status HEALTHY, LATE, MISSING, DISABLED or UNSCHEDULED, newest missed cycles, p95 lateness, stale on arrival, failed runs.`,
} as const;

/** What the agent should do next, by failure code (W4 recovery: one repaired retry, never a guessed id). */
export function adviceFor(failure: ToolFailure): string {
  switch (failure.code) {
    case 'invalid_memory_link':
      return `Call get_trading_context again, replace only links[${failure.link_index}] with an id copied unchanged from it (or drop that link), and retry once. Never guess ids.`;
    case 'invalid_memory_target':
      return `instruments[${failure.instrument_index}] is not an active instrument this agent selects: replace only that entry with one of ${(failure.selected ?? []).join(', ') || '(none selected)'} and retry once.`;
    case 'unknown_instrument':
      return `Use one of the selected instruments exactly as listed (${(failure.selected ?? []).join(', ') || 'none selected'}); call list_instruments for the catalog.`;
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

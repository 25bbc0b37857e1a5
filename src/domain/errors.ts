// The service's typed failures, one class per case, and the one place their codes live.
//
// Code convention (documented once, docs/api.md#callers-and-tokens): `code` is the GraphQL `extensions.code`.
// Request-level failures use GraphQL's SCREAMING_SNAKE vocabulary (UNAUTHENTICATED, FORBIDDEN,
// BAD_USER_INPUT, NOT_FOUND, CONFLICT, INTERNAL_SERVER_ERROR); a write's typed outcomes (the
// CreateMemoryResult members, the REST 4xx bodies, the MCP tool errors) use the contract's snake_case
// machine codes (invalid_memory_link, …). `details()` are the fields a client acts on; GraphQL,
// REST and MCP all read them from here, so nothing classifies an error by its message (W5).
// A class carries domain facts only; each transport maps them once: GraphQL in src/auth/errors.ts
// (toGraphQLError), REST and export in src/http/rest-errors.ts, MCP in src/mcp/mcp-server.ts,
// WebSocket close codes in src/transport/ws/close-codes.ts.
import { findUnstorableText, quoteInput, type TextInput } from './text-hygiene.js';

export abstract class ServiceError extends Error {
  abstract readonly code: string;
  override get name(): string {
    return this.constructor.name;
  }
  /** The machine-readable fields beside `code` (field, linkIndex, instrumentIndex, index). */
  details(): Record<string, unknown> {
    return {};
  }
}

/** No caller: no token, an unknown token, or one that stopped authenticating (`ended`: W9, S6). */
export class UnauthenticatedError extends ServiceError {
  readonly code = 'UNAUTHENTICATED';
  constructor(
    reason?: string | null,
    readonly ended = false,
  ) {
    super(reason ? `Not authenticated: ${reason}` : 'Not authenticated: send Authorization: Bearer <token>');
  }
}

/**
 * A token that stopped authenticating, found by the statement that acted on it (its check folded in:
 * W9's insert, a read for a remembered token); answered as the gate answers such a token (401).
 */
export class InactiveTokenError extends ServiceError {
  readonly code = 'UNAUTHENTICATED';
  /** What the refusal says after "Not authenticated: " (the gate's words, L4). */
  readonly detail: string;
  constructor(
    detail: string,
    /** False when the token is no longer known at all: answered as an unknown token is (S14). */
    readonly ended = true,
  ) {
    super(`Not authenticated: ${detail}`);
    this.detail = detail;
  }
}

/** W9: the writing run is no longer RUNNING (finished while the write was on its way); REST answers 401. */
export class RunNotRunningError extends InactiveTokenError {
  constructor(runId: string | null, status: string | null) {
    super(`run ${runId ?? 'unknown'} is ${status ?? 'unknown'}`);
  }
}

export class ForbiddenError extends ServiceError {
  readonly code = 'FORBIDDEN';
  constructor(message = 'This token may not do that') {
    super(message);
  }
}

/** A failure about one input, naming its field when known (`details().field`). */
abstract class FieldScopedError extends ServiceError {
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
  override details() {
    return this.field === undefined ? {} : { field: this.field };
  }
}

/** A request the caller can fix (bad argument combination, unknown reference); never a server fault. */
export class InputError extends FieldScopedError {
  readonly code = 'BAD_USER_INPUT';
}

/** W10 for read and admin arguments: text PostgreSQL cannot store is BAD_USER_INPUT naming its field. */
export function requireStorableText(inputs: readonly TextInput[]): void {
  const unstorable = findUnstorableText(inputs);
  if (unstorable) throw new InputError(unstorable.message, unstorable.field);
}

export class NotFoundError extends ServiceError {
  readonly code = 'NOT_FOUND';
}

export class ConflictError extends FieldScopedError {
  readonly code = 'CONFLICT';
}

/** Write-path failures that are union members of CreateMemoryResult (W*). */
export abstract class MemoryWriteError extends ServiceError {}

export class InvalidMemoryLinkError extends MemoryWriteError {
  readonly code = 'invalid_memory_link';
  constructor(readonly linkIndex: number) {
    // W4: one answer for nonexistent and foreign ids (no existence oracle).
    super(
      `links[${linkIndex}].target_memory_id is unavailable; copy the exact ID from authorized same-agent context and retry once`,
    );
  }
  override details() {
    return { linkIndex: this.linkIndex };
  }
}

/** A message names at most ten instruments (the structured `selected` has them all). */
function listed(ids: readonly string[]): string {
  if (!ids.length) return 'none selected';
  return ids.length > 10 ? `${ids.slice(0, 10).join(', ')}, … (${ids.length} in all)` : ids.join(', ');
}

export class InvalidMemoryTargetError extends MemoryWriteError {
  readonly code = 'invalid_memory_target';
  constructor(
    readonly instrumentIndex: number,
    readonly instrument: string,
    /** M11: the active instruments the agent selects — what a write's target could have been (null: an import). */
    readonly selected: readonly string[] | null = null,
  ) {
    super(
      `instruments[${instrumentIndex}] ${quoteInput(instrument)} is not an active instrument selected by this agent; use the venue's exact name (case-sensitive)${selected ? `, one of: ${listed(selected)}` : ''}`,
    );
  }
  /** The same refusal, naming what the agent selects. */
  withSelected(selected: readonly string[]): InvalidMemoryTargetError {
    return new InvalidMemoryTargetError(this.instrumentIndex, this.instrument, selected);
  }
  override details() {
    return {
      instrumentIndex: this.instrumentIndex,
      ...(this.selected ? { selected: [...this.selected] } : {}),
    };
  }
}

export class MemoryValidationError extends MemoryWriteError {
  readonly code = 'validation_error';
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
  override details() {
    return { field: this.field };
  }
}

export class ReservedMemoryTypeError extends MemoryWriteError {
  readonly code = 'reserved_memory_type';
}

export class IdempotencyConflictError extends MemoryWriteError {
  readonly code = 'idempotency_conflict';
  constructor() {
    super(
      'idempotencyKey was already used by this producer for a different write; use a new key for new content',
    );
  }
}

/** I4: an import batch fails as a whole and names the bad item. */
export class ImportItemError extends ServiceError {
  readonly code: string;
  constructor(
    readonly index: number,
    override readonly cause: ServiceError,
  ) {
    super(`input[${index}]: ${cause.message}`);
    this.code = cause.code;
  }
  override details() {
    return { index: this.index, ...this.cause.details() };
  }
}

/** L4: one subscription whose consumer fell too far behind ends; the client resumes with `after`. */
export class SlowConsumerError extends ServiceError {
  readonly code = 'SLOW_CONSUMER';
  constructor(maxPending: number) {
    super(`slow consumer: more than ${maxPending} undelivered records; resubscribe with after=<last cursor>`);
  }
}

/** S6, L4: a subscription whose token was revoked (or whose run finished) ends. */
/** S11: the token holds its MAX_CONNECTIONS_PER_TOKEN WebSockets and SSE streams already (SSE: 429). */
export class TooManyConnectionsError extends ServiceError {
  readonly code = 'TOO_MANY_CONNECTIONS';
  /** Seconds a client waits before it asks again (`Retry-After`). */
  readonly retryAfterSeconds = 5;
  constructor(max: number) {
    super(`At most ${max} WebSockets and SSE streams may be open at once per token; close one first`);
  }
}

export class SessionRevokedError extends ServiceError {
  readonly code = 'FORBIDDEN';
  constructor() {
    super('Forbidden: the token was revoked');
  }
}

/** S7: a read ran past STATEMENT_TIMEOUT_MS of database time and was cancelled (REST 503, MCP isError). */
export class QueryTimeoutError extends ServiceError {
  readonly code = 'QUERY_TIMEOUT';
  constructor(readonly timeoutMs?: number) {
    super(
      `The read took longer than its ${timeoutMs ? `${timeoutMs} ms ` : ''}bound and was stopped; narrow the filter (a shorter time window, types, fewer or rarer search words) and retry`,
    );
  }
}

/**
 * S8: the token already runs its share of expensive reads (searches, exports, MCP list calls), or
 * the service its capacity for them: REST 429 with Retry-After.
 */
export class RateLimitedError extends ServiceError {
  readonly code = 'RATE_LIMITED';
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
  override details() {
    return { retryAfterSeconds: this.retryAfterSeconds };
  }
}

/** S9: the statement was cancelled because nobody waits for its answer any more (never sent to a client). */
export class ReadCancelledError extends ServiceError {
  readonly code = 'CANCELLED';
  constructor() {
    super('The request ended before this read answered');
  }
}

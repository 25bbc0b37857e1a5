import { quoteInput } from '../domain/text-hygiene.js';
import { Prisma } from './generated/prisma/client.js';

// Typed failures of the store layer: one class per case. The GraphQL layer (errors plugin and
// error masking) and the REST layer map these classes; nothing classifies by message text (W5).

export abstract class StoreError extends Error {
  abstract readonly code: string;
  override get name(): string {
    return this.constructor.name;
  }
}

/** Write-path failures that are union members of CreateMemoryResult (W*). */
export abstract class MemoryWriteError extends StoreError {}

export class InvalidMemoryLinkError extends MemoryWriteError {
  readonly code = 'invalid_memory_link';
  constructor(readonly linkIndex: number) {
    // W4: one answer for nonexistent and foreign ids (no existence oracle).
    super(
      `links[${linkIndex}].target_memory_id is unavailable; copy the exact ID from authorized same-agent context and retry once`,
    );
  }
}

export class InvalidMemoryTargetError extends MemoryWriteError {
  readonly code = 'invalid_memory_target';
  constructor(
    readonly instrumentIndex: number,
    instrument: string,
  ) {
    super(
      `instruments[${instrumentIndex}] ${quoteInput(instrument)} is not an active instrument selected by this agent; use the exact canonical name (e.g. "ETH")`,
    );
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

/** W9: the writing run is no longer RUNNING (finished while the write was on its way). */
export class RunNotRunningError extends StoreError {
  readonly code = 'UNAUTHENTICATED';
  constructor(runId: string | null, status: string | null) {
    super(`Not authenticated: run ${runId ?? ''} is ${status ?? 'unknown'}`.replace('  ', ' '));
  }
}

/** Admin and read failures (not union members): mapped to GraphQL errors with extensions.code. */
export class NotFoundError extends StoreError {
  readonly code = 'NOT_FOUND';
}

export class ConflictError extends StoreError {
  readonly code = 'CONFLICT';
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

export class InputError extends StoreError {
  readonly code = 'BAD_USER_INPUT';
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/** I4: an import batch fails as a whole and names the bad item. */
export class ImportItemError extends StoreError {
  readonly code: string;
  constructor(
    readonly index: number,
    override readonly cause: StoreError,
  ) {
    super(`input[${index}]: ${cause.message}`);
    this.code = cause.code;
  }
}

/** A unique index refused the row: SQLSTATE 23505 from either driver, or Prisma's P2002. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    code === '23505' || (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002')
  );
}

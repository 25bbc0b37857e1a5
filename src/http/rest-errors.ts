// The plain-HTTP routes' one mapping of typed failures to a status and a snake_case body: the REST
// write (POST /api/v1/memories) and the export answer every failure through it. GraphQL maps the
// same classes in src/schema/errors.ts, MCP in src/mcp; nothing here reads a message to decide.
import { describeAuthFailure, type AuthFailure } from '../auth/caller.js';
import {
  ForbiddenError,
  InactiveTokenError,
  InputError,
  MemoryWriteError,
  QueryTimeoutError,
  RateLimitedError,
  ReadCancelledError,
} from '../domain/errors.js';
import type { Metrics } from '../metrics.js';
import { prismaQueryTimeout } from '../store/errors.js';
import { json } from './json.js';

const WRITE_ERROR_STATUS: Record<string, number> = { validation_error: 400, idempotency_conflict: 409 };

/** The body's own spelling of a write field: `idempotencyKey` ⇒ `idempotency_key`, `links[0].linkType` ⇒ `links[0].link_type`. */
function bodyField(field: string): string {
  return field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** A typed write failure as the REST body (and the MCP tool error) shows it: `error`, `code`, snake_case details. */
function writeErrorBody(error: MemoryWriteError): Record<string, unknown> {
  const body: Record<string, unknown> = { error: error.message, code: error.code };
  for (const [key, value] of Object.entries(error.details())) {
    body[bodyField(key)] = key === 'field' && typeof value === 'string' ? bodyField(value) : value;
  }
  return body;
}

/** 401 as the plain-HTTP routes answer it: GraphQL's reason, the REST code. */
export function unauthenticatedResponse(failure: AuthFailure | null): Response {
  const reason = describeAuthFailure(failure);
  return json(401, {
    error: reason ? `not authenticated: ${reason}` : 'not authenticated',
    code: 'unauthenticated',
  });
}

/** How a route names an input's field and words its message (the export speaks of query parameters). */
export interface FieldWording {
  field(field: string | undefined): string | undefined;
  message(message: string): string;
}

const BODY_WORDING: FieldWording = {
  field: (field) => (field === undefined ? undefined : bodyField(field)),
  message: (message) => message,
};

/**
 * A typed failure as its REST answer, or null when the failure is the service's own (the route
 * logs it and answers `internalErrorResponse()`, W5). S7/S8 refusals are counted in `metrics`.
 */
export function restRefusal(thrown: unknown, metrics?: Metrics, wording = BODY_WORDING): Response | null {
  const error = prismaQueryTimeout(thrown) ?? thrown;
  if (error instanceof MemoryWriteError)
    return json(WRITE_ERROR_STATUS[error.code] ?? 422, writeErrorBody(error));
  // W9: the run finished (or the token was revoked) while the request was on its way: said as the
  // token check says it (L4); a token no longer known at all is answered as an unknown one (S14).
  if (error instanceof InactiveTokenError)
    return unauthenticatedResponse(
      error.ended ? { reason: 'inactive', detail: error.detail } : { reason: 'unknown' },
    );
  if (error instanceof QueryTimeoutError) {
    metrics?.readsRefused.inc({ reason: 'query_timeout' });
    return json(503, { error: error.message, code: 'query_timeout' });
  }
  if (error instanceof RateLimitedError) {
    metrics?.readsRefused.inc({ reason: 'rate_limited' });
    const response = json(429, { error: error.message, code: 'rate_limited' });
    response.headers.set('retry-after', String(error.retryAfterSeconds));
    return response;
  }
  if (error instanceof ReadCancelledError) return json(499, { error: 'cancelled' });
  if (error instanceof ForbiddenError) return json(403, { error: error.message, code: 'forbidden' });
  if (error instanceof InputError) {
    const field = wording.field(error.field);
    const body = { error: wording.message(error.message), code: 'validation_error' };
    return json(400, field === undefined ? body : { ...body, field });
  }
  return null;
}

/** A failure of the service itself: generic, leaking nothing (W5); the cause is logged, never sent. */
export function internalErrorResponse(): Response {
  return json(500, { error: 'internal error', code: 'internal_error' });
}

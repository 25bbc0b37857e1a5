// The REST mirror's body (snake_case) and its status mapping of the typed store errors.
import type { Logger } from '../logger.js';
import type { CreateMemoryInput } from '../store/memories.js';
import {
  IdempotencyConflictError,
  InvalidMemoryLinkError,
  InvalidMemoryTargetError,
  MemoryValidationError,
  ReservedMemoryTypeError,
  RunNotRunningError,
} from '../store/errors.js';
import { isUuid } from '../domain/uuid.js';
import { json } from './json.js';

type Parsed = { ok: true; input: CreateMemoryInput } | { ok: false; field: string; message: string };

function fail(field: string, message: string): Parsed {
  return { ok: false, field, message };
}

const isStringOrNull = (v: unknown) => v === undefined || v === null || typeof v === 'string';

/** Request shape only (types, UUID syntax); the domain rules run in the shared service function. */
export function parseRestMemoryBody(body: unknown): Parsed {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    return fail('body', 'the body must be a JSON object');
  const b = body as Record<string, unknown>;
  if (typeof b.type !== 'string') return fail('type', 'type must be a string');
  if (b.scope !== 'AGENT' && b.scope !== 'INSTRUMENTS')
    return fail('scope', 'scope must be "AGENT" or "INSTRUMENTS"');
  if (typeof b.content !== 'string') return fail('content', 'content must be a string');
  if (b.instruments !== undefined && b.instruments !== null) {
    if (!Array.isArray(b.instruments) || b.instruments.some((i) => typeof i !== 'string')) {
      return fail('instruments', 'instruments must be an array of strings');
    }
  }
  if (!isStringOrNull(b.timeframe)) return fail('timeframe', 'timeframe must be a string');
  if (!isStringOrNull(b.idempotency_key)) return fail('idempotency_key', 'idempotency_key must be a string');
  const links: { targetMemoryId: string; linkType: string }[] = [];
  if (b.links !== undefined && b.links !== null) {
    if (!Array.isArray(b.links)) return fail('links', 'links must be an array');
    for (const [i, link] of b.links.entries()) {
      const l = (link ?? {}) as Record<string, unknown>;
      // W4: a malformed UUID is a request validation error, not a 422.
      if (!isUuid(l.target_memory_id)) {
        return fail(`links[${i}].target_memory_id`, `links[${i}].target_memory_id must be a UUID`);
      }
      if (typeof l.link_type !== 'string')
        return fail(`links[${i}].link_type`, `links[${i}].link_type must be a string`);
      links.push({ targetMemoryId: l.target_memory_id, linkType: l.link_type });
    }
  }
  return {
    ok: true,
    input: {
      type: b.type,
      scope: b.scope,
      instruments: (b.instruments as string[] | null | undefined) ?? null,
      content: b.content,
      metadata: b.metadata,
      timeframe: (b.timeframe as string | null | undefined) ?? null,
      links,
      idempotencyKey: (b.idempotency_key as string | null | undefined) ?? null,
    },
  };
}

/** The body's own spelling of a write field: `idempotencyKey` ⇒ `idempotency_key`, `links[0].linkType` ⇒ `links[0].link_type`. */
function bodyField(field: string): string {
  return field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** Typed store errors ⇒ the contract's statuses; anything else is a generic 500 that leaks nothing (W5). */
export function restErrorResponse(error: unknown, logger: Logger): Response {
  if (error instanceof InvalidMemoryLinkError) {
    return json(422, { error: error.message, code: error.code, link_index: error.linkIndex });
  }
  if (error instanceof InvalidMemoryTargetError) {
    return json(422, { error: error.message, code: error.code, instrument_index: error.instrumentIndex });
  }
  if (error instanceof MemoryValidationError) {
    return json(400, { error: error.message, code: error.code, field: bodyField(error.field) });
  }
  if (error instanceof ReservedMemoryTypeError) return json(422, { error: error.message, code: error.code });
  if (error instanceof IdempotencyConflictError) return json(409, { error: error.message, code: error.code });
  // W9: the run finished while the write was on its way.
  if (error instanceof RunNotRunningError)
    return json(401, { error: error.message, code: 'unauthenticated' });
  logger.error({ err: error }, 'memory write failed');
  return json(500, { error: 'internal error', code: 'internal_error' });
}

// The REST mirror's body (snake_case); its failures are answered by rest-errors.ts.
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { MemoryWrite } from '../service/write-memory.js';
import { checkArgumentKeys, type ArgumentShape } from '../domain/argument-keys.js';
import { isUuid } from '../domain/uuid.js';
import { internalErrorResponse, restRefusal } from './rest-errors.js';

type Parsed = { ok: true; input: MemoryWrite } | { ok: false; field: string; message: string };

function fail(field: string, message: string): Parsed {
  return { ok: false, field, message };
}

const isStringOrNull = (v: unknown) => v === undefined || v === null || typeof v === 'string';

/** M10: the body's keys (the write_memory tool's arguments are the same). */
const WRITE_BODY: ArgumentShape = {
  keys: ['type', 'scope', 'instruments', 'content', 'metadata', 'timeframe', 'links', 'idempotency_key'],
  required: ['type', 'scope', 'content'],
  nested: { links: { keys: ['target_memory_id', 'link_type'], required: ['target_memory_id', 'link_type'] } },
};

/** Request shape only (keys, types, UUID syntax); the domain rules run in the shared service function. */
export function parseRestMemoryBody(body: unknown): Parsed {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    return fail('body', 'the body must be a JSON object');
  const b = body as Record<string, unknown>;
  const keyProblem = checkArgumentKeys(b, WRITE_BODY);
  if (keyProblem) return fail(keyProblem.field, keyProblem.message);
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

/** Typed errors ⇒ the contract's statuses (rest-errors.ts); anything else is a generic 500 that leaks nothing (W5). */
export function restErrorResponse(error: unknown, logger: Logger, metrics?: Metrics): Response {
  const refusal = restRefusal(error, metrics);
  if (refusal) return refusal;
  logger.error({ err: error }, 'memory write failed');
  return internalErrorResponse();
}

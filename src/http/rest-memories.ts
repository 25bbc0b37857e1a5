// POST /api/v1/memories, the REST mirror of createMemory: its body (snake_case), the write as the
// request's caller, and its failures answered by rest-errors.ts.
import type { Plugin } from 'graphql-yoga';
import { may, roleOf } from '../auth/access-table.js';
import type { RequestCaller } from '../auth/request-caller.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import { writeMemory, type MemoryWrite, type WriteDeps } from '../service/write-memory.js';
import { toMemoryView } from '../records/record-view.js';
import type { ServingContext } from './auth-gate.js';
import { json } from './json.js';
import { BodyTooLarge, MAX_REST_BODY_BYTES, readCapped } from './request-body.js';
import { checkArgumentKeys, type ArgumentShape } from '../domain/argument-keys.js';
import { isUuid } from '../domain/uuid.js';
import { internalErrorResponse, restRefusal, unauthenticatedResponse } from './rest-errors.js';

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

export const REST_MEMORIES_PATH = '/api/v1/memories';

interface RestWriteDeps extends WriteDeps {
  logger: Logger;
  /** The request's caller, resolved once (the auth gate's). */
  callerOf(request: Request, serverContext?: ServingContext): Promise<RequestCaller>;
}

export function restMemoriesRoute(deps: RestWriteDeps): Plugin {
  return {
    async onRequest({ request, url, endResponse, serverContext }) {
      if (url.pathname !== REST_MEMORIES_PATH) return;
      if (request.method !== 'POST')
        return endResponse(json(405, { error: 'use POST', code: 'method_not_allowed' }));
      try {
        endResponse(await postMemory(deps, request, serverContext));
      } catch (error) {
        // e.g. the database stopped answering while resolving the token (W5: nothing leaks).
        endResponse(restErrorResponse(error, deps.logger, deps.metrics));
      }
    },
  };
}

async function postMemory(
  deps: RestWriteDeps,
  request: Request,
  serverContext: ServingContext,
): Promise<Response> {
  // A known run needs no lookup: the insert checks its status (W9), writeMemory does on a refusal.
  const requestCaller = await deps.callerOf(request, serverContext);
  const { caller } = requestCaller;
  if (!caller) return unauthenticatedResponse(requestCaller.resolution.failure);
  // S6: a refusal to a token whose liveness was not read says first whether it still authenticates
  // (writeMemory does the same for the refusals it gives).
  const refuseUnlessLive = async (refusal: Response) => {
    const checked = await requestCaller.live();
    return checked.caller ? refusal : unauthenticatedResponse(checked.failure);
  };
  // W1: the access table's writers (every writer is a run: its token carries the provenance).
  if (!may(roleOf(caller), 'write') || caller.kind !== 'run')
    return refuseUnlessLive(json(403, { error: 'writing memories needs a run token', code: 'forbidden' }));
  const body = await readMemoryBody(request);
  if ('refusal' in body) return refuseUnlessLive(body.refusal);
  try {
    const unchecked = caller.unverified === true;
    const written = await writeMemory(deps, caller.run, body.input, 'rest', unchecked);
    const memory = toMemoryView(written.record, deps.now());
    return json(201, { memory, expires_at: memory.expires_at });
  } catch (error) {
    return restErrorResponse(error, deps.logger, deps.metrics);
  }
}

/** The body of POST /api/v1/memories as a write, or the 4xx refusing it. */
async function readMemoryBody(request: Request): Promise<{ input: MemoryWrite } | { refusal: Response }> {
  let body: unknown;
  try {
    body = JSON.parse(await readCapped(request, MAX_REST_BODY_BYTES));
  } catch (error) {
    if (error instanceof BodyTooLarge) {
      return {
        refusal: json(413, {
          error: `the body must be at most ${MAX_REST_BODY_BYTES} bytes`,
          code: 'validation_error',
          field: 'body',
        }),
      };
    }
    return {
      refusal: json(400, {
        error: 'the body must be a JSON object',
        code: 'validation_error',
        field: 'body',
      }),
    };
  }
  const parsed = parseRestMemoryBody(body);
  if (!parsed.ok)
    return { refusal: json(400, { error: parsed.message, code: 'validation_error', field: parsed.field }) };
  return { input: parsed.input };
}

// Plain HTTP beside GraphQL: health, readiness, the REST write mirror, the export and the operator page.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Plugin } from 'graphql-yoga';
import type { RequestCaller } from '../auth/request-caller.js';
import { may, roleOf } from '../auth/access-table.js';
import type { Database } from '../store/db.js';
import type { MemoryEvents } from '../live/events.js';
import type { TokenSessions } from '../live/token-sessions.js';
import type { Logger } from '../logger.js';
import { json } from './json.js';
import type { ServingContext } from './auth-gate.js';
import { unauthenticatedResponse } from './rest-errors.js';
import { parseRestMemoryBody, restErrorResponse } from './rest-memories.js';
import { EXPORT_PATH, exportMemories, nodeResponseOf } from './export.js';
import { writeMemory, type MemoryWrite } from '../service/write-memory.js';
import type { Metrics } from '../metrics.js';
import type { ReadBudget } from '../service/read-budget.js';
import { toMemoryView } from '../store/memory-view.js';

interface RouteDeps {
  db: Database;
  events: MemoryEvents;
  adminToken: string;
  logger: Logger;
  now: () => Date;
  webRoot?: string;
  metrics?: Metrics;
  /** The request's caller, resolved once (the auth gate's). */
  callerOf(request: Request, serverContext?: ServingContext): Promise<RequestCaller>;
  /** S8: the per-token count of expensive reads (the export takes a slot). */
  budget: ReadBudget;
  /** S10: an export ends when its token is revoked or its run finishes. */
  sessions: TokenSessions;
}

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.map': 'application/json',
};

async function serveStatic(webRoot: string, pathname: string): Promise<Response | null> {
  const relative = pathname === '/' ? 'index.html' : pathname.replace(/^\/+/, '');
  const file = path.resolve(webRoot, relative);
  if (!file.startsWith(path.resolve(webRoot) + path.sep)) return null;
  try {
    const body = await readFile(file);
    return new Response(body, {
      headers: {
        'content-type': contentTypes[path.extname(file)] ?? 'application/octet-stream',
        'cache-control': relative === 'index.html' ? 'no-cache' : 'public, max-age=3600',
      },
    });
  } catch {
    return null;
  }
}

/** One record is at most ~600 KB of JSON (W7); a REST body is never buffered beyond this. */
export const MAX_REST_BODY_BYTES = 2 * 1024 * 1024;

export class BodyTooLarge extends Error {}

/** Reads the body as text, stopping as soon as it passes `max` bytes (chunked bodies included). */
export async function readCapped(request: Request, max: number): Promise<string> {
  if (Number(request.headers.get('content-length') ?? 0) > max) throw new BodyTooLarge();
  if (!request.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  try {
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      size += read.value.byteLength;
      if (size > max) throw new BodyTooLarge();
      chunks.push(read.value);
    }
  } finally {
    // Stops the upload of a body refused half-way (as leaving a for-await loop did).
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function postMemory(
  deps: RouteDeps,
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

export function httpRoutes(deps: RouteDeps): Plugin {
  return {
    async onRequest({ request, url, endResponse, serverContext }) {
      const { pathname } = url;
      if (pathname === '/healthz' && request.method === 'GET') {
        return endResponse(json(200, { status: 'ok' }));
      }
      if (pathname === '/readyz' && request.method === 'GET') {
        try {
          await deps.db.ping();
          return endResponse(json(200, { status: 'ready', database: deps.db.kind }));
        } catch {
          return endResponse(json(503, { status: 'unavailable', database: deps.db.kind }));
        }
      }
      if (pathname === '/api/v1/memories') {
        if (request.method !== 'POST')
          return endResponse(json(405, { error: 'use POST', code: 'method_not_allowed' }));
        try {
          return endResponse(await postMemory(deps, request, serverContext));
        } catch (error) {
          // e.g. the database stopped answering while resolving the token (W5: nothing leaks).
          return endResponse(restErrorResponse(error, deps.logger, deps.metrics));
        }
      }
      if (pathname === EXPORT_PATH) {
        if (request.method !== 'GET')
          return endResponse(json(405, { error: 'use GET', code: 'method_not_allowed' }));
        const connection = nodeResponseOf(serverContext);
        return endResponse(await exportMemories(deps, request, url.searchParams, connection, serverContext));
      }
      if (deps.webRoot && request.method === 'GET' && !pathname.startsWith('/graphql')) {
        const response = await serveStatic(deps.webRoot, pathname);
        if (response) return endResponse(response);
      }
    },
  };
}

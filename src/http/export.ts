// GET /api/v1/export (B12): the caller's filtered view as NDJSON or CSV, newest first,
// streamed one page at a time as the client reads (backpressure), whatever its size. Everything that
// can be refused (401, 403, 400) or fail cleanly (500) is decided before the first byte of the body.
// S10: revoking the token or finishing its run, on any instance, cuts the export within a second.
import { ServerResponse } from 'node:http';
import type { Plugin } from 'graphql-yoga';
import { agentForRead, requireCapability } from '../auth/access.js';
import { resolveCaller, type Caller } from '../auth/caller.js';
import type { RequestCaller } from '../auth/request-caller.js';
import { bearerToken } from '../auth/tokens.js';
import { resolveFilter } from '../domain/memory-filter.js';
import { logError } from '../log-policy.js';
import { requestLogContext, type Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { ReadBudget } from '../service/read-budget.js';
import type { TokenSessions } from '../live/token-sessions.js';
import { exportPages } from '../service/export-memories.js';
import type { Database } from '../store/db.js';
import type { MemoryRecord } from '../records/record-shape.js';
import { API_CSP } from './browser-policy.js';
import { FORMATS, type ExportFormat } from './export-format.js';
import { inParameterWords, parameterOfField, parseExportQuery } from './export-query.js';
import { json } from './json.js';
import type { ServingContext } from './auth-gate.js';
import {
  internalErrorResponse,
  restRefusal,
  unauthenticatedResponse,
  type FieldWording,
} from './rest-errors.js';

export const EXPORT_PATH = '/api/v1/export';

interface ExportDeps {
  db: Database;
  /**
   * S8: an export is an expensive read for its whole life — one of the token's slots (it holds a
   * page of records in memory while its client reads), its pages on the expensive pool.
   */
  budget: ReadBudget;
  adminToken: string;
  logger: Logger;
  now: () => Date;
  metrics?: Metrics;
  sessions: TokenSessions;
  /** The request's caller, resolved once (the auth gate's: the export reads the token's liveness with it). */
  callerOf(request: Request, serverContext?: ServingContext): Promise<RequestCaller>;
}

type StreamOutcome = 'complete' | 'cancelled' | 'failed' | 'revoked';
type Outcome =
  | StreamOutcome
  | 'unauthenticated'
  | 'forbidden'
  | 'validation_error'
  | 'too_many'
  | 'timeout'
  | 'internal_error';

/** The Node response under this request (null in-process, through yoga.fetch). */
export function nodeResponseOf(serverContext: unknown): ServerResponse | null {
  const res = (serverContext as { res?: unknown } | undefined)?.res;
  return res instanceof ServerResponse ? res : null;
}

export async function exportMemories(
  deps: ExportDeps,
  request: Request,
  search: URLSearchParams,
  connection: ServerResponse | null,
  serverContext?: ServingContext,
): Promise<Response> {
  let format: ExportFormat | 'unknown' = 'unknown';
  let release = () => {};
  const answer = (outcome: Outcome, response: Response) => {
    release();
    deps.metrics?.exports.inc({ format, outcome });
    return response;
  };
  try {
    const { caller, resolution } = await deps.callerOf(request, serverContext);
    if (!caller) return answer('unauthenticated', unauthenticatedResponse(resolution.failure));
    const parsed = parseExportQuery(search);
    if (!parsed.ok) {
      return answer('validation_error', invalid(parsed.field, parsed.message));
    }
    const shape = FORMATS[parsed.query.format];
    format = parsed.query.format;
    const slot = await deps.budget.acquire(caller.tokenKey, request.signal);
    // S10: watched from before the first page is read, so no revocation goes unheard.
    const revocation = watchRevocation(deps.sessions, caller, slot);
    release = revocation.end;
    // Resolved once (B4): every page of the export shares this instant's window and freshness.
    const now = deps.now();
    requireCapability(caller, 'browse');
    const agentId = agentForRead(caller, parsed.query.agentId);
    const filter = resolveFilter(parsed.query.filter, now);
    // S9: the client's leaving cancels the page in flight.
    const pages = exportPages(deps.db.scoped({ signal: request.signal, expensive: true }), agentId, filter);
    const first = await pages.next();
    if (revocation.signal.aborted)
      return answer('unauthenticated', await refusalAsOnANewRequest(deps, request));
    const body = recordStream({
      first: first.done ? null : first.value,
      pages,
      head: shape.head,
      render: (record) => shape.render(record, now),
      signal: request.signal,
      revoked: revocation.signal,
      cutConnection: () => {
        connection?.destroy();
        return connection !== null;
      },
      ended: endedLogger(deps, parsed.query.format, Date.now(), revocation.end),
    });
    // The stream owns the slot now: it gives it back when it ends, however it ends.
    release = () => {};
    return new Response(body, {
      headers: {
        'content-type': shape.mediaType,
        'content-disposition': `attachment; filename="memories-${agentId}-${now.toISOString().slice(0, 10)}.${parsed.query.format}"`,
        'cache-control': 'no-store',
        // text/* gets no policy from the browser policy plugin; an export is data, never a document.
        'content-security-policy': API_CSP,
      },
    });
  } catch (error) {
    const refusal = restRefusal(error, deps.metrics, EXPORT_WORDING);
    if (refusal) return answer(REFUSAL_OUTCOME[refusal.status] ?? 'internal_error', refusal);
    logError(deps.logger, error, 'export'); // e.g. the database did not answer: nothing sent yet
    return answer('internal_error', internalErrorResponse());
  }
}

/**
 * `signal` is aborted once the caller's token stops authenticating (S6: revoked, run finished), here
 * or on another instance; `end` stops watching, then runs `then` (the export's own end).
 */
function watchRevocation(
  sessions: TokenSessions,
  caller: Caller,
  then: () => void,
): { signal: AbortSignal; end: () => void } {
  const revocation = new AbortController();
  // The admin token cannot be revoked (it changes with a restart).
  const stop =
    caller.kind === 'admin' ? () => {} : sessions.register(caller.tokenKey, () => revocation.abort());
  return {
    signal: revocation.signal,
    end: () => {
      stop();
      then();
    },
  };
}

/** S14: a token revoked before the first byte gets what a new request with it would get. */
async function refusalAsOnANewRequest(deps: ExportDeps, request: Request): Promise<Response> {
  const token = bearerToken(request.headers.get('authorization'));
  const { failure } = await resolveCaller(deps.db, token, deps.adminToken);
  return unauthenticatedResponse(failure);
}

/** The export's inputs are query parameters: a failure names the parameter, in its spelling. */
const EXPORT_WORDING: FieldWording = { field: parameterOfField, message: inParameterWords };

/** The export's outcome label (memory_exports_total) of each refusal status rest-errors.ts answers. */
const REFUSAL_OUTCOME: Record<number, Outcome> = {
  400: 'validation_error',
  401: 'unauthenticated',
  403: 'forbidden',
  429: 'too_many',
  499: 'cancelled',
  503: 'timeout',
};

function invalid(field: string, message: string): Response {
  return json(400, { error: inParameterWords(message), code: 'validation_error', field });
}

/** Metrics and one log line when a stream ends, on the request's log context (S4: counts, never content). */
function endedLogger(deps: ExportDeps, format: ExportFormat, startedAt: number, release: () => void) {
  const context = requestLogContext.getStore();
  return (outcome: StreamOutcome, records: number, error?: unknown) => {
    release();
    const log = () => {
      deps.metrics?.exports.inc({ format, outcome });
      deps.metrics?.exportedRecords.inc({ format }, records);
      const fields = { format, records, ms: Date.now() - startedAt };
      if (outcome === 'failed') logError(deps.logger, error, `export cut after ${records} records`);
      else if (outcome === 'cancelled') deps.logger.info(fields, 'export cancelled by the client');
      else if (outcome === 'revoked') deps.logger.info(fields, 'export ended: its token was revoked');
      else deps.logger.debug(fields, 'export finished');
    };
    if (context) requestLogContext.run(context, log);
    else log();
  };
}

interface StreamPlan {
  /** The first page, read before the response was answered; null when the view is empty. */
  first: MemoryRecord[] | null;
  pages: AsyncGenerator<MemoryRecord[], void, undefined>;
  head: string;
  render: (record: MemoryRecord) => string;
  /** The request's signal: aborted when the client goes away. */
  signal: AbortSignal;
  /** Aborted when the token stops authenticating (S10). */
  revoked: AbortSignal;
  /** Ends the connection without the closing chunk; false when there is no connection (in-process). */
  cutConnection: () => boolean;
  ended: (outcome: StreamOutcome, records: number, error?: unknown) => void;
}

function closeQuietly(controller: ReadableStreamDefaultController<Uint8Array>): void {
  try {
    controller.close();
  } catch {
    // Already closed or cancelled by the reader.
  }
}

/**
 * The body: one page per read (highWaterMark 0: nothing is read ahead of the client), the next
 * statement only when the previous page has been taken. A client that leaves stops the reads; a
 * failure or a revocation cuts the connection, so the download fails instead of ending like a
 * complete file.
 */
function recordStream(plan: StreamPlan): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let buffered: MemoryRecord[] | null | undefined = plan.first;
  let records = 0;
  let done = false;
  let stream: ReadableStreamDefaultController<Uint8Array> | null = null;
  const finish = (outcome: StreamOutcome, error?: unknown): boolean => {
    if (done) return false;
    done = true;
    plan.signal.removeEventListener('abort', cancelled);
    plan.revoked.removeEventListener('abort', revoked);
    // Ends the generator once its statement in flight (if any) returns: no further statement is sent.
    plan.pages.return().catch(() => {});
    plan.ended(outcome, records, error);
    return true;
  };
  const cancelled = () => void finish('cancelled');
  // S10: at once, even while a page is read or the client holds the body unread.
  const revoked = () => {
    if (finish('revoked') && !plan.cutConnection())
      stream?.error(new Error('the export ended: its token was revoked'));
  };
  plan.signal.addEventListener('abort', cancelled);
  plan.revoked.addEventListener('abort', revoked);
  const nextPage = async () => {
    const next = await plan.pages.next();
    return next.done ? null : next.value;
  };
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        stream = controller;
        if (plan.head) controller.enqueue(encoder.encode(plan.head));
      },
      async pull(controller) {
        try {
          const page = buffered === undefined ? await nextPage() : buffered;
          buffered = undefined;
          if (done) return closeQuietly(controller); // the client left while the page was read
          if (page === null) {
            finish('complete');
            return controller.close();
          }
          controller.enqueue(encoder.encode(page.map(plan.render).join('')));
          records += page.length;
        } catch (error) {
          if (!finish('failed', error)) return;
          if (plan.cutConnection()) closeQuietly(controller);
          else controller.error(new Error('the export failed before its end'));
        }
      },
      cancel() {
        finish('cancelled');
      },
    },
    { highWaterMark: 0 },
  );
}

/** GET /api/v1/export (B12). */
export function exportRoute(deps: ExportDeps): Plugin {
  return {
    async onRequest({ request, url, endResponse, serverContext }) {
      if (url.pathname !== EXPORT_PATH) return;
      if (request.method !== 'GET')
        return endResponse(json(405, { error: 'use GET', code: 'method_not_allowed' }));
      const connection = nodeResponseOf(serverContext);
      endResponse(await exportMemories(deps, request, url.searchParams, connection, serverContext));
    },
  };
}

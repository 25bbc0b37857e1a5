// S4: every request gets a request id (an incoming sane `x-request-id`, else a new one) and a caller
// kind; both ride on every log line written while it is handled, and the id goes back as a header.
import { randomUUID } from 'node:crypto';
import type { Plugin } from 'graphql-yoga';
import { requestLogContext, type CallerKindForLog, type Logger, type RequestLogFields } from '../logger.js';

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

interface RequestState extends RequestLogFields {
  startedAt: number;
}

/** Called where the caller is resolved; lines written after it carry the kind. */
export function noteCaller(kind: CallerKindForLog): void {
  const state = requestLogContext.getStore();
  if (state) state.caller = kind;
}

export function requestIdOf(request: Request): string {
  const incoming = request.headers.get('x-request-id');
  return incoming && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/** One line per finished request: debug when it succeeded, info for a client mistake, warn for a fault. */
export function requestLogPlugin(logger: Logger): Plugin {
  return {
    instrumentation: {
      request: ({ request }, wrapped) => {
        const state: RequestState = {
          reqId: requestIdOf(request),
          caller: request.headers.has('authorization') ? 'unverified' : 'none',
          startedAt: Date.now(),
        };
        return requestLogContext.run(state, wrapped);
      },
    },
    onResponse({ request, response }) {
      const state = requestLogContext.getStore() as RequestState | undefined;
      if (!state) return;
      response.headers.set('x-request-id', state.reqId);
      const { status } = response;
      const level = status >= 500 ? 'warn' : status >= 400 ? 'info' : 'debug';
      const path = new URL(request.url, 'http://localhost').pathname;
      logger[level](
        { method: request.method, path, status, ms: Date.now() - state.startedAt },
        'request finished',
      );
    },
  };
}

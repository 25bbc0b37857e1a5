// S2 browser safety: CORS only for CORS_ORIGINS and never with credentials, the WebSocket's Origin
// check, JSON-only POSTs (415 otherwise), and the security headers of every response.
import type { IncomingMessage } from 'node:http';
import type { CORSOptions, Plugin } from 'graphql-yoga';

/** The page and its scripts come only from the service itself; its WebSocket and fetches go back to it. */
export const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * GraphiQL: the same, plus its editor workers (same-origin files), inline fonts, and inline styles —
 * its editor (Monaco) and React set styles at run time. Scripts stay 'self' only: no inline script.
 */
export const GRAPHIQL_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** JSON and other non-page responses: nothing may load or frame them as a document. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'";

/** What Yoga parses as JSON (application/graphql-response+json is a response type: Yoga does not parse it). */
const JSON_MEDIA_TYPES = new Set(['application/json', 'application/graphql+json']);

export function mediaTypeOf(contentType: string | null): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/** No Origin (an agent, curl), the service's own origin (compared with Host), or one of CORS_ORIGINS. */
export function isAllowedOrigin(
  origin: string | null | undefined,
  host: string | null | undefined,
  allowed: readonly string[],
): boolean {
  if (origin == null || origin === '') return true;
  if (allowed.includes(origin)) return true;
  try {
    return !!host && new URL(origin).host === host.toLowerCase();
  } catch {
    return false;
  }
}

/** Yoga's `cors` option: an allowed foreign origin gets CORS headers without credentials; others get none. */
export function corsPolicy(allowed: readonly string[]) {
  return (request: Request): CORSOptions | false => {
    const origin = request.headers.get('origin');
    if (!origin || !allowed.includes(origin)) return false;
    return {
      origin: [origin],
      credentials: false,
      methods: ['GET', 'POST'],
      allowedHeaders: ['authorization', 'content-type', 'accept', 'x-request-id'],
      exposedHeaders: ['x-request-id'],
      maxAge: 600,
    };
  };
}

/** `ws` verifyClient: refuses a foreign Origin with HTTP 403 before the upgrade. */
export function verifyWebSocketOrigin(allowed: readonly string[]) {
  return (
    info: { origin: string; req: IncomingMessage },
    done: (ok: boolean, code?: number, message?: string) => void,
  ): void => {
    if (isAllowedOrigin(info.origin, info.req.headers.host, allowed)) done(true);
    else done(false, 403, 'Origin not allowed');
  };
}

function unsupportedMediaType(pathname: string, graphqlEndpoint: string): Response {
  const message = 'Send the body as application/json';
  const body =
    pathname === graphqlEndpoint
      ? { errors: [{ message, extensions: { code: 'UNSUPPORTED_MEDIA_TYPE' } }] }
      : { error: message, code: 'unsupported_media_type' };
  return new Response(JSON.stringify(body), {
    status: 415,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
  });
}

/**
 * A form-encoded, multipart or text/plain POST is a "simple" request a foreign page can send
 * without a preflight: refused before anything is parsed or executed. Security headers on everything.
 */
export function browserPolicyPlugin(options: {
  corsOrigins: readonly string[];
  graphqlEndpoint: string;
}): Plugin {
  return {
    onRequest({ request, url, endResponse }) {
      if (
        request.method === 'POST' &&
        !JSON_MEDIA_TYPES.has(mediaTypeOf(request.headers.get('content-type')))
      ) {
        endResponse(unsupportedMediaType(url.pathname, options.graphqlEndpoint));
      }
    },
    onResponse({ request, response }) {
      const headers = response.headers;
      headers.set('x-content-type-options', 'nosniff');
      headers.set('referrer-policy', 'no-referrer');
      headers.set('x-frame-options', 'DENY');
      if (options.corsOrigins.length) headers.append('vary', 'Origin');
      // GraphiQL sets its own policy; other HTML gets the page's, data the strictest.
      if (!headers.has('content-security-policy')) {
        const type = mediaTypeOf(headers.get('content-type'));
        const graphiql = new URL(request.url, 'http://localhost').pathname === options.graphqlEndpoint;
        if (type === 'text/html') headers.set('content-security-policy', graphiql ? GRAPHIQL_CSP : PAGE_CSP);
        else if (!type.startsWith('text/')) headers.set('content-security-policy', API_CSP);
      }
    },
  };
}

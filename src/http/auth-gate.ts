// S3 cost before trust: the caller is resolved from the Authorization header before the body is
// read, and a request without a valid token is refused before its document is parsed or validated —
// except small introspection-only documents (GraphiQL needs them), parsed under strict limits.
// One resolution per request, for every route behind it (GraphQL, the REST write, the export, MCP).
import {
  GraphQLError,
  Kind,
  parse,
  type DocumentNode,
  type ExecutionResult,
  type SelectionSetNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { isUnverified, type CallerResolution } from '../auth/caller.js';
import { internalError, unauthenticated } from '../auth/errors.js';
import { RequestCaller, type CallerResolver } from '../auth/request-caller.js';
import { bearerToken } from '../auth/tokens.js';
import type { Logger } from '../logger.js';
import { logError } from '../log-policy.js';
import { noteCaller } from './request-log.js';

/** Anonymous introspection: at most this many bytes in the body and tokens in the document. */
export const ANONYMOUS_MAX_BYTES = 16 * 1024;
export const ANONYMOUS_MAX_TOKENS = 1_000;
/** Anonymous introspection: root fields per operation (one full `__schema` is what GraphiQL asks). */
export const ANONYMOUS_MAX_ROOT_FIELDS = 3;
/** Any caller: a GraphQL document (not its variables) larger than this is refused before parsing. */
export const MAX_DOCUMENT_BYTES = 64 * 1024;

/** Plain routes that are not GraphQL; every other request is gated, whatever spelling of the endpoint Yoga accepts. */
const NOT_GRAPHQL = new Set(['/healthz', '/readyz', '/metrics', '/api/v1/memories', '/api/v1/export']);
/** The REST write: its insert checks the run itself (W9), so a remembered identity needs no lookup (S14). */
const REST_WRITE = '/api/v1/memories';

/** The server context of a request: an in-process one (an MCP tool's call) carries `requestCaller`. */
export type ServingContext = object;

/** The caller of the request an in-process request serves (yoga.fetch's server context), if any. */
function servedCaller(serverContext: ServingContext | undefined): RequestCaller | undefined {
  const shared = serverContext && 'requestCaller' in serverContext ? serverContext.requestCaller : undefined;
  return shared instanceof RequestCaller ? shared : undefined;
}

export interface AuthGate {
  plugin: Plugin;
  /**
   * This request's caller, resolved once whoever asks first (the gate, a route); a request made
   * in-process for another (an MCP tool's call) shares that one's. Rejects when the database fails.
   */
  callerOf(request: Request, serverContext?: ServingContext): Promise<RequestCaller>;
}

interface GateDeps {
  callers: CallerResolver;
  logger: Logger;
  /** Paths where every request, whatever its method or size, needs a token (no anonymous introspection). */
  tokenOnlyPaths?: readonly string[];
}

/** Each request's caller, resolved by the first that asks; `settled`: once resolved. */
function requestCallers(deps: GateDeps) {
  const resolved = new WeakMap<Request, Promise<RequestCaller>>();
  const settled = new WeakMap<Request, RequestCaller>();
  const tokenOnly = (request: Request) =>
    deps.tokenOnlyPaths?.includes(new URL(request.url).pathname) ?? false;
  const callerOf = (request: Request, serverContext?: ServingContext): Promise<RequestCaller> => {
    let pending = resolved.get(request);
    if (!pending) {
      const token = bearerToken(request.headers.get('authorization'));
      const served = servedCaller(serverContext);
      const resolving = served
        ? Promise.resolve(served)
        : deps.callers.resolve(token, {
            deferLiveness: mayDeferLiveness(request, tokenOnly(request)),
            // As when the first lookup fails: the caller was not established.
            onLivenessFault: () => noteCaller('unverified'),
          });
      pending = resolving.then((requestCaller) => {
        settled.set(request, requestCaller);
        noteCaller(requestCaller.caller?.kind ?? 'none'); // S4: every log line of the request names it
        return requestCaller;
      });
      resolved.set(request, pending);
    }
    return pending;
  };
  return { callerOf, tokenOnly, settled: (request: Request) => settled.get(request) };
}

export function createAuthGate(deps: GateDeps): AuthGate {
  const { callerOf, tokenOnly, settled } = requestCallers(deps);
  const refuse = (resolution: CallerResolution) => unauthenticated(resolution.failure);

  const plugin: Plugin = {
    async onRequest({ request, url, endResponse, fetchAPI, serverContext }) {
      const onlyWithToken = tokenOnly(request);
      // GETs without a query are pages and assets; anything that may carry a document is gated.
      if (
        !onlyWithToken &&
        (NOT_GRAPHQL.has(url.pathname) || (request.method === 'GET' && !url.searchParams.has('query')))
      )
        return;
      let requestCaller: RequestCaller;
      try {
        requestCaller = await callerOf(request, serverContext);
      } catch (error) {
        // The database did not answer: a generic error that leaks nothing (W5).
        logError(deps.logger, error, 'resolving the caller');
        return endResponse(json(fetchAPI, 500, { errors: [internalError().toJSON()] }));
      }
      if (requestCaller.caller) return;
      // An anonymous body that is large, or of unknown length (chunked), is refused before it is read.
      const length = request.headers.get('content-length');
      if (
        onlyWithToken ||
        (request.method !== 'GET' && (length === null || Number(length) > ANONYMOUS_MAX_BYTES))
      ) {
        endResponse(json(fetchAPI, 401, { errors: [refuse(requestCaller.resolution).toJSON()] }));
      }
    },
    onParams({ request, params, setResult }) {
      if ((params.query?.length ?? 0) > MAX_DOCUMENT_BYTES) {
        const tooLarge = new GraphQLError(
          `The document is larger than ${MAX_DOCUMENT_BYTES} bytes; pass values as variables`,
          { extensions: { code: 'BAD_USER_INPUT', http: { status: 413 } } },
        );
        return setResult({ errors: [tooLarge] });
      }
      const requestCaller = settled(request);
      // A GraphQL request the gate did not see (an unusual spelling of the path) is refused too.
      if (!requestCaller) return setResult({ errors: [unauthenticated(null)] });
      // A remembered token (`unverified`) goes on to be parsed: its body is small (≤ ANONYMOUS_MAX_BYTES,
      // no more than an anonymous introspection costs), and the `live` scope checks it at execution.
      if (requestCaller.caller) return;
      if (!isSmallIntrospection(params.query)) setResult({ errors: [refuse(requestCaller.resolution)] });
    },
    onExecutionResult: sameAnswerOnceEnded(settled, refuse),
  };
  return { plugin, callerOf };
}

/**
 * S6, S14: a remembered token that turns out dead gets what an unknown one gets, whatever it sent.
 * When the request read that it is dead (a `live` scope, a read that found nothing), or nothing was
 * answered — a parse or validation error, a refused variable, another agent's id, every root field
 * skipped — the token is checked (at most once per request) before the answer is sent.
 */
function sameAnswerOnceEnded(
  settled: (request: Request) => RequestCaller | undefined,
  refuse: (resolution: CallerResolution) => GraphQLError,
): Plugin['onExecutionResult'] {
  return async ({ request, result, setResult }) => {
    const requestCaller = settled(request);
    if (!requestCaller || !isUnverified(requestCaller.caller) || !result || isAsyncIterable(result)) return;
    let ended = requestCaller.ended;
    if (!ended) {
      if (answered(result)) return;
      // A server fault answers every caller alike (W5) and has been logged: nothing to tell apart.
      if (result.errors?.every((error) => error.extensions?.code === 'INTERNAL_SERVER_ERROR')) return;
      const now = await requestCaller.live();
      if (now.caller) return;
      ended = now;
    }
    setResult({ errors: [refuse(ended)] });
  };
}

/**
 * S14: whether this request may take a remembered identity without a statement — a small GraphQL
 * POST (no more than an anonymous introspection to parse, S3) or the REST write; any other request
 * (a GET, a large body, the export, MCP) reads the token's liveness with its identity.
 */
function mayDeferLiveness(request: Request, tokenOnly: boolean): boolean {
  if (tokenOnly || request.method !== 'POST') return false;
  const { pathname } = new URL(request.url);
  if (pathname === REST_WRITE) return true;
  return !NOT_GRAPHQL.has(pathname) && hasSmallBody(request);
}

function isAsyncIterable(value: object): value is AsyncIterable<unknown> {
  return Symbol.asyncIterator in value;
}

/**
 * At least one root field answered (a partial success stays as it is). A result with no field at all
 * (every root field skipped by @skip/@include; a compiled query leaves them `undefined`) answered
 * nothing either.
 */
function answered({ data, errors }: ExecutionResult): boolean {
  const fields = Object.values(data ?? {}).filter((value) => value !== undefined);
  return errors?.length ? fields.some((value) => value !== null) : fields.length > 0;
}

/** A POST whose declared body is at most ANONYMOUS_MAX_BYTES. */
function hasSmallBody(request: Request): boolean {
  const length = request.headers.get('content-length');
  return length !== null && Number(length) <= ANONYMOUS_MAX_BYTES;
}

function json(fetchAPI: { Response: typeof Response }, status: number, body: unknown): Response {
  return new fetchAPI.Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8' },
  });
}

/** True for a small document whose operations select only `__schema`, `__type` and `__typename` at the root. */
export function isSmallIntrospection(query: string | undefined): boolean {
  if (!query || query.length > ANONYMOUS_MAX_BYTES) return false;
  let document: DocumentNode;
  try {
    document = parse(query, { noLocation: true, maxTokens: ANONYMOUS_MAX_TOKENS });
  } catch {
    return false;
  }
  const fragments = new Map<string, SelectionSetNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION)
      fragments.set(definition.name.value, definition.selectionSet);
  }
  let rootFields = 0; // aliases and fragments included: each `__schema` is a whole schema to answer
  const rootIsIntrospection = (set: SelectionSetNode, seen: Set<string>): boolean =>
    set.selections.every((selection) => {
      if (selection.kind === Kind.FIELD)
        return ++rootFields <= ANONYMOUS_MAX_ROOT_FIELDS && selection.name.value.startsWith('__');
      if (selection.kind === Kind.INLINE_FRAGMENT) return rootIsIntrospection(selection.selectionSet, seen);
      const name = selection.name.value;
      const fragment = fragments.get(name);
      if (!fragment || seen.has(name)) return false;
      return rootIsIntrospection(fragment, new Set([...seen, name]));
    });
  return document.definitions.every(
    (definition) =>
      definition.kind === Kind.FRAGMENT_DEFINITION ||
      (definition.kind === Kind.OPERATION_DEFINITION &&
        definition.operation === 'query' &&
        rootIsIntrospection(definition.selectionSet, new Set())),
  );
}

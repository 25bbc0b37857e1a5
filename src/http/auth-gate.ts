// S3 cost before trust: the caller is resolved from the Authorization header before the body is
// read, and a request without a valid token is refused before its document is parsed or validated —
// except small introspection-only documents (GraphiQL needs them), parsed under strict limits.
import { GraphQLError, Kind, parse, type DocumentNode, type SelectionSetNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import {
  resolveCaller,
  resolveCallerDeferringLiveness,
  type CallerResolution,
  type TokenIdentities,
} from '../auth/caller.js';
import { internalError, unauthenticated } from '../auth/errors.js';
import { bearerToken } from '../auth/tokens.js';
import type { Logger } from '../logger.js';
import { logError } from '../log-policy.js';
import type { Database } from '../store/db.js';
import { livenessBeforeParse, livenessHooks } from './deferred-liveness.js';
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

export interface AuthGate {
  plugin: Plugin;
  /** The caller resolved for this request by the gate (the context reuses it: one lookup per request). */
  resolutionOf(request: Request): CallerResolution | undefined;
}

export function createAuthGate(deps: {
  db: Database;
  adminToken: string;
  graphqlEndpoint: string;
  logger: Logger;
  /** Paths where every request, whatever its method or size, needs a token (no anonymous introspection). */
  tokenOnlyPaths?: readonly string[];
  /** Token identities this process has read: a write or a read of a known token needs no lookup(S14). */
  identities: TokenIdentities;
}): AuthGate {
  const resolutions = new WeakMap<Request, CallerResolution>();
  const refuse = (resolution: CallerResolution) => unauthenticated(resolution.failure);

  const plugin: Plugin = {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      const tokenOnly = deps.tokenOnlyPaths?.includes(url.pathname) ?? false;
      // GETs without a query are pages and assets; anything that may carry a document is gated.
      if (
        !tokenOnly &&
        (NOT_GRAPHQL.has(url.pathname) || (request.method === 'GET' && !url.searchParams.has('query')))
      )
        return;
      let resolution: CallerResolution;
      const token = bearerToken(request.headers.get('authorization'));
      try {
        // A known token's small POST may be a write, whose insert checks the run's status (W9), or a
        // read that checks the token in its own statement: the token is checked below only if the
        // document turns out to be anything else (S6). Small: such a caller costs no more parsing
        // than an anonymous introspection (S3).
        resolution =
          !tokenOnly && request.method === 'POST' && hasSmallBody(request)
            ? await resolveCallerDeferringLiveness(deps.db, token, deps.adminToken, deps.identities)
            : await resolveCaller(deps.db, token, deps.adminToken);
      } catch (error) {
        // The database did not answer: a generic error that leaks nothing (W5).
        logError(deps.logger, error, 'resolving the caller');
        return endResponse(json(fetchAPI, 500, { errors: [internalError().toJSON()] }));
      }
      resolutions.set(request, resolution);
      noteCaller(resolution.caller?.kind ?? 'none'); // S4: every log line of the request names it
      if (resolution.caller) return;
      // An anonymous body that is large, or of unknown length (chunked), is refused before it is read.
      const length = request.headers.get('content-length');
      if (
        tokenOnly ||
        (request.method !== 'GET' && (length === null || Number(length) > ANONYMOUS_MAX_BYTES))
      ) {
        endResponse(json(fetchAPI, 401, { errors: [refuse(resolution).toJSON()] }));
      }
    },
    async onParams({ request, params, setResult }) {
      if ((params.query?.length ?? 0) > MAX_DOCUMENT_BYTES) {
        const tooLarge = new GraphQLError(
          `The document is larger than ${MAX_DOCUMENT_BYTES} bytes; pass values as variables`,
          { extensions: { code: 'BAD_USER_INPUT', http: { status: 413 } } },
        );
        return setResult({ errors: [tooLarge] });
      }
      let resolution = resolutions.get(request);
      // A GraphQL request the gate did not see (an unusual spelling of the path) is refused too.
      if (!resolution) return setResult({ errors: [unauthenticated(null)] });
      try {
        resolution = await livenessBeforeParse(deps.db, resolution, params.query, isSmallIntrospection);
      } catch (error) {
        noteCaller('unverified'); // as when the first lookup fails: the caller was not established
        logError(deps.logger, error, 'resolving the caller');
        return setResult({ errors: [internalError(500)] });
      }
      resolutions.set(request, resolution);
      if (resolution.caller) return;
      if (!isSmallIntrospection(params.query)) setResult({ errors: [refuse(resolution)] });
    },
    ...livenessHooks(deps.db, refuse, resolutions),
  };
  return { plugin, resolutionOf: (request) => resolutions.get(request) };
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

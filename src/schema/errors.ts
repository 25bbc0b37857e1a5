// The GraphQL error mapping (HTTP, SSE and WebSocket): typed service errors become GraphQL errors,
// GraphQL's own errors are bounded (W10, S4), anything else is masked and logged (W5).
import { GraphQLError } from 'graphql';
import { maskError as defaultMaskError } from 'graphql-yoga';
import { boundQuotedInput } from '../domain/text-hygiene.js';
import { QueryTimeoutError, RateLimitedError, ServiceError } from '../domain/errors.js';
import type { Metrics } from '../metrics.js';
import { prismaQueryTimeout } from '../store/errors.js';
import { toGraphQLError } from '../auth/errors.js';
import type { Logger } from '../logger.js';
import { logError, withBoundedMessage } from '../log-policy.js';

/** Typed service errors become GraphQL errors with their own extensions; anything else is masked and logged (W5: nothing leaks). */
export function maskErrors(logger: Logger, metrics?: Metrics) {
  return (error: unknown, message: string, isDev?: boolean): GraphQLError => {
    const thrown = error instanceof GraphQLError ? error.originalError : error;
    const original = prismaQueryTimeout(thrown) ?? thrown;
    if (original instanceof ServiceError) {
      if (original instanceof QueryTimeoutError) metrics?.readsRefused.inc({ reason: 'query_timeout' });
      if (original instanceof RateLimitedError) metrics?.readsRefused.inc({ reason: 'rate_limited' });
      return toGraphQLError(original, error instanceof GraphQLError ? error.path : undefined);
    }
    if (error instanceof GraphQLError && !error.originalError) return requestError(error);
    if (error instanceof GraphQLError && error.originalError instanceof GraphQLError)
      return requestError(error.originalError);
    logError(logger, error, 'graphql');
    const masked = defaultMaskError(error, message, isDev);
    const path = masked instanceof GraphQLError ? masked.path : undefined;
    return new GraphQLError(masked.message, { path, extensions: { code: 'INTERNAL_SERVER_ERROR' } });
  };
}

/**
 * GraphQL's own errors (parse, validation, variable coercion) echo the request: W10 bounds what they
 * quote, and one without a code or path is the request's fault (a value the schema refused): BAD_USER_INPUT.
 */
export function requestError(error: GraphQLError): GraphQLError {
  const code = error.extensions.code ?? (error.path ? undefined : 'BAD_USER_INPUT');
  const message = boundQuotedInput(error.message);
  if (message === error.message && code === error.extensions.code) return error;
  return new GraphQLError(message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: { ...error.extensions, ...(code === undefined ? {} : { code }) },
  });
}

/** S4: no message is echoed back unbounded (a 10 MB variable stays on the server's side of the wire). */
export function boundedMasking(mask: ReturnType<typeof maskErrors>): ReturnType<typeof maskErrors> {
  return (error, message, isDev) => {
    return withBoundedMessage(mask(error, message, isDev));
  };
}

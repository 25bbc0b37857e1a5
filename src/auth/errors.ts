// Typed failures as GraphQL errors, for the places that answer before or outside execution (the
// auth gate, the WebSocket, error masking). Resolvers throw the domain classes themselves.
import { GraphQLError } from 'graphql';
import {
  ForbiddenError,
  InactiveTokenError,
  TooManyConnectionsError,
  UnauthenticatedError,
  type ServiceError,
} from '../domain/errors.js';
import { authFailureError, type AuthFailure } from './caller.js';

/**
 * GraphQL `extensions.reason` of an UNAUTHENTICATED answer to a real token that stopped
 * authenticating (revoked, or its run finished: S6): a client tells an ended session from a wrong
 * token by this, never by the message.
 */
export const TOKEN_ENDED = 'TOKEN_ENDED';

/** The HTTP answer of a failure that decides the whole response (Yoga reads and strips `http`). */
function httpOf(error: ServiceError): { status: number; headers?: Record<string, string> } | undefined {
  if (error instanceof UnauthenticatedError) return { status: 401 };
  if (error instanceof ForbiddenError) return { status: 403 };
  if (error instanceof TooManyConnectionsError)
    return { status: 429, headers: { 'retry-after': String(error.retryAfterSeconds) } };
  return undefined;
}

/** A token that stopped authenticating is said so (S6); an unknown one is not (S14). */
function ended(error: ServiceError): boolean {
  return (error instanceof UnauthenticatedError || error instanceof InactiveTokenError) && error.ended;
}

/**
 * The one mapping of a typed failure to GraphQL: its message, and in `extensions` its code, its
 * details, whether the token ended, and the HTTP status when it decides the response (W5: nothing else).
 */
export function toGraphQLError(error: ServiceError, path?: readonly (string | number)[]): GraphQLError {
  const http = httpOf(error);
  const extensions = {
    code: error.code,
    ...error.details(),
    ...(ended(error) ? { reason: TOKEN_ENDED } : {}),
    ...(http ? { http } : {}),
  };
  return new GraphQLError(error.message, { path, extensions });
}

export function unauthenticated(failure: AuthFailure | null = null): GraphQLError {
  return toGraphQLError(authFailureError(failure));
}

/** A server fault as callers see it: generic, leaking nothing (W5); the cause is logged, never sent.
 * `status`: the HTTP status to answer with when this error alone is the result (Yoga reads and drops it). */
export function internalError(status?: number): GraphQLError {
  const http = status === undefined ? {} : { http: { status } };
  return new GraphQLError('Unexpected error.', { extensions: { code: 'INTERNAL_SERVER_ERROR', ...http } });
}

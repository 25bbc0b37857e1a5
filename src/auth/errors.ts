// Typed failures as GraphQL errors, for the places that answer before or outside execution (the
// auth gate, the WebSocket, error masking). Resolvers throw the domain classes themselves.
import { GraphQLError } from 'graphql';
import type { ServiceError } from '../domain/errors.js';
import { authFailureError, type AuthFailure } from './caller.js';

/** A ServiceError as GraphQL shows it: its message, its code and details in `extensions` (W5: nothing else). */
export function toGraphQLError(error: ServiceError, path?: readonly (string | number)[]): GraphQLError {
  return new GraphQLError(error.message, { path, extensions: error.extensions() });
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

import { GraphQLError } from 'graphql';
import { findUnstorableText, type TextInput } from '../domain/text-hygiene.js';

export function unauthenticated(reason?: string | null): GraphQLError {
  return new GraphQLError(
    reason ? `Not authenticated: ${reason}` : 'Not authenticated: send Authorization: Bearer <token>',
    {
      extensions: { code: 'UNAUTHENTICATED', http: { status: 401 } },
    },
  );
}

export function forbidden(message = 'This token may not do that'): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'FORBIDDEN', http: { status: 403 } } });
}

/** A request the caller can fix (bad argument combination, unknown reference); never a server fault. */
export function badInput(message: string, field?: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT', ...(field ? { field } : {}) } });
}

/** W10 for read and admin arguments: text PostgreSQL cannot store is BAD_USER_INPUT naming its field. */
export function requireStorableText(inputs: readonly TextInput[]): void {
  const unstorable = findUnstorableText(inputs);
  if (unstorable) throw badInput(unstorable.message, unstorable.field);
}

/** A server fault as callers see it: generic, leaking nothing (W5); the cause is logged, never sent. */
export function internalError(): GraphQLError {
  return new GraphQLError('Unexpected error.', { extensions: { code: 'INTERNAL_SERVER_ERROR' } });
}

import { GraphQLError } from 'graphql';

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

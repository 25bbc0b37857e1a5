// A small GraphQL-over-HTTP client for the page: one POST per operation, errors as typed values.

export interface GraphQLErrorShape {
  message: string;
  path?: (string | number)[];
  extensions?: Record<string, unknown>;
}

/**
 * The token is missing or unknown (UNAUTHENTICATED), may not browse (FORBIDDEN), or worked and stopped
 * working: revoked, or its run finished (ENDED, S6).
 */
export class AuthError extends Error {
  constructor(
    message: string,
    readonly code: 'UNAUTHENTICATED' | 'FORBIDDEN' | 'ENDED',
  ) {
    super(message);
    this.name = 'AuthError';
  }
}

/** The server answered with GraphQL errors the operator cannot fix by signing in again. */
export class RequestError extends Error {
  constructor(
    message: string,
    readonly errors: GraphQLErrorShape[] = [],
  ) {
    super(message);
    this.name = 'RequestError';
  }
}

/** The server could not be reached (offline, restarting) or answered something that is not GraphQL. */
export class NetworkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NetworkError';
  }
}

/** `extensions.reason` of a token that worked and stopped working (the server's TOKEN_ENDED, S6). */
const ENDED = 'TOKEN_ENDED';

/** Turns a list of GraphQL errors into the error the page acts on (auth errors win). */
export function errorFromGraphQL(errors: readonly GraphQLErrorShape[]): AuthError | RequestError {
  for (const error of errors) {
    const code = error.extensions?.code;
    if (code === 'UNAUTHENTICATED' && error.extensions?.reason === ENDED)
      return new AuthError(error.message, 'ENDED');
    if (code === 'UNAUTHENTICATED' || code === 'FORBIDDEN') return new AuthError(error.message, code);
  }
  return new RequestError(errors.map((error) => error.message).join('; ') || 'Request failed', [...errors]);
}

export interface GraphQLClient {
  request<T>(query: string, variables?: Record<string, unknown>, signal?: AbortSignal): Promise<T>;
}

export function createGraphQLClient(endpoint: string, token: string): GraphQLClient {
  return {
    async request<T>(query: string, variables: Record<string, unknown> = {}, signal?: AbortSignal) {
      let response: Response;
      try {
        response = await fetch(endpoint, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/graphql-response+json, application/json',
            authorization: `Bearer ${token}`,
          },
          body: JSON.stringify({ query, variables }),
          signal,
        });
      } catch (error) {
        if (error instanceof DOMException && error.name === 'AbortError') throw error;
        throw new NetworkError('The memory service could not be reached. Check the connection and retry.');
      }
      let body: { data?: T | null; errors?: GraphQLErrorShape[] };
      try {
        body = (await response.json()) as typeof body;
      } catch {
        throw new NetworkError(
          `The memory service answered HTTP ${response.status} without a GraphQL result.`,
        );
      }
      // Auth failures come with HTTP 401/403 and a GraphQL error body; read the body first.
      if (body.errors?.length) throw errorFromGraphQL(body.errors);
      if (!response.ok || body.data == null) {
        throw new NetworkError(`The memory service answered HTTP ${response.status}.`);
      }
      return body.data;
    },
  };
}

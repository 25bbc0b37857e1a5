// How a tool reaches the service: through the same GraphQL operations and REST write as any other
// client — in-process (`yoga.fetch`, for /mcp) or over HTTP (the stdio bin) — so no rule is copied.
import { jsonText } from './json-text.js';

/** A fetch against the service: `path` is `/graphql` or `/api/v1/memories`. */
export type ServiceFetch = (path: string, init: RequestInit) => Promise<Response>;

/** An error the service answered, in GraphQL's terms: `code` is its `extensions.code` (UNAUTHENTICATED, FORBIDDEN, …). */
export class ServiceAnswerError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

interface RestAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** S8: the header that marks a tool's list call, which the service counts as an expensive read. */
export const MCP_LIST_CALL_HEADER = 'x-mcp-list-call';

export interface GraphQLCallOptions {
  /** S8: a list call (list_memories, list_memory_types) counts against the token's expensive reads. */
  listCall?: boolean;
}

export interface ServiceExecutor {
  /** Runs one GraphQL operation as the caller; a GraphQL error becomes a ServiceAnswerError. */
  graphql<T>(document: string, variables?: Record<string, unknown>, options?: GraphQLCallOptions): Promise<T>;
  /** POST /api/v1/memories as the caller: the status and the JSON body, whatever they are. */
  postMemory(body: unknown): Promise<RestAnswer>;
}

const INTERNAL = 'INTERNAL_SERVER_ERROR';

/** REST statuses that are not a typed write failure ⇒ the GraphQL code with the same meaning. */
const REST_STATUS_CODES: Record<number, string> = { 401: 'UNAUTHENTICATED', 403: 'FORBIDDEN' };

export function serviceExecutor(
  fetchService: ServiceFetch,
  authorization: string | null,
  requestId?: string,
  /** S9: aborted when the MCP client goes away; the tool's reads are cancelled with it. */
  signal?: AbortSignal,
): ServiceExecutor {
  const headers = {
    'content-type': 'application/json',
    accept: 'application/graphql-response+json, application/json',
    ...(authorization ? { authorization } : {}),
    ...(requestId ? { 'x-request-id': requestId } : {}),
  };
  const call = async (
    path: string,
    body: unknown,
    extraHeaders: Record<string, string> = {},
  ): Promise<{ status: number; json: unknown }> => {
    const response = await fetchService(path, {
      method: 'POST',
      headers: { ...headers, ...extraHeaders },
      // M7: the arguments as they came, however deep; the service answers W7's limits for them.
      body: jsonText(body),
      ...(signal ? { signal } : {}),
    });
    const text = await response.text();
    try {
      return { status: response.status, json: JSON.parse(text) as unknown };
    } catch {
      // A proxy's HTML page or a truncated answer: nothing of it is passed on (W5).
      throw new ServiceAnswerError(`The memory service answered HTTP ${response.status}`, INTERNAL);
    }
  };
  return {
    async graphql<T>(
      document: string,
      variables: Record<string, unknown> = {},
      options: GraphQLCallOptions = {},
    ): Promise<T> {
      const { json } = await call(
        '/graphql',
        { query: document, variables },
        options.listCall ? { [MCP_LIST_CALL_HEADER]: '1' } : {},
      );
      const result = json as {
        data?: T;
        errors?: { message: string; extensions?: { code?: string; field?: string } }[];
      };
      const error = result.errors?.[0];
      if (error) {
        throw new ServiceAnswerError(
          error.message,
          error.extensions?.code ?? INTERNAL,
          error.extensions?.field,
        );
      }
      if (!result.data) throw new ServiceAnswerError('The memory service answered without data', INTERNAL);
      return result.data;
    },
    async postMemory(body: unknown): Promise<RestAnswer> {
      const { status, json } = await call('/api/v1/memories', body);
      const answer = (json && typeof json === 'object' ? json : {}) as Record<string, unknown>;
      const code = REST_STATUS_CODES[status] ?? (status >= 500 ? INTERNAL : null);
      if (code) throw new ServiceAnswerError(String(answer.error ?? `HTTP ${status}`), code);
      return { status, body: answer };
    },
  };
}

/** The stdio bin's way in: the service at `baseUrl`, each call bounded by `timeoutMs`. */
export function httpServiceFetch(baseUrl: string, timeoutMs = 30_000): ServiceFetch {
  const base = baseUrl.replace(/\/+$/, '');
  return async (path, init) => {
    try {
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
      return await fetch(`${base}${path}`, { ...init, signal });
    } catch {
      throw new ServiceAnswerError(`Cannot reach the memory service at ${base}`, INTERNAL);
    }
  };
}

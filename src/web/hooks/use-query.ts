// One GraphQL read for a view (a record page, a context): loading, the answer or the error, a retry;
// a new query or new variables drop the previous request. A rejected token signs out (useAuthFailure).
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { GraphQLClient } from '../graphql.js';

export type QueryState<T> =
  | { status: 'loading'; data: T | null }
  | { status: 'ready'; data: T }
  | { status: 'error'; data: T | null; message: string };

export interface Query<T> {
  state: QueryState<T>;
  retry: () => void;
}

function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError';
}

export function useQuery<T>(
  client: GraphQLClient,
  query: string,
  variables: Record<string, unknown>,
  failed: (error: unknown) => boolean,
): Query<T> {
  const [state, setState] = useState<QueryState<T>>({ status: 'loading', data: null });
  const [attempt, setAttempt] = useState(0);
  // Variables are compared by value: a new object with the same values is the same request.
  const key = JSON.stringify(variables);
  useEffect(() => {
    const controller = new AbortController();
    // The previous answer stays on screen (dimmed) until the new one arrives.
    setState((current) => ({ status: 'loading', data: current.data }));
    client
      .request<T>(query, JSON.parse(key) as Record<string, unknown>, controller.signal)
      .then((data) => setState({ status: 'ready', data }))
      .catch((error: unknown) => {
        if (isAbort(error) || failed(error)) return;
        const message = error instanceof Error ? error.message : String(error);
        setState((current) => ({ status: 'error', data: current.data, message }));
      });
    return () => controller.abort();
  }, [client, query, key, failed, attempt]);
  const retry = useCallback(() => setAttempt((n) => n + 1), []);
  return { state, retry };
}

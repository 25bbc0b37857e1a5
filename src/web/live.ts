// Live updates over graphql-ws (B5, L2). Every (re)connection subscribes with the cursor of the newest
// record shown at that moment, so the server replays whatever was missed while disconnected.
import { createClient, type Client } from 'graphql-ws';
import { AuthError, errorFromGraphQL, type GraphQLErrorShape } from './graphql.js';
import {
  MEMORY_ADDED_SUBSCRIPTION,
  type MemoryAddedResult,
  type MemoryEdge,
  type MemoryFilter,
} from './queries.js';

export type LiveStatus =
  | { state: 'connecting' }
  | { state: 'live' }
  | { state: 'reconnecting'; inSeconds: number }
  | { state: 'unavailable'; message: string; inSeconds: number };

export interface LiveOptions {
  url: string;
  token: string;
  filter: MemoryFilter;
  /** Read at every (re)subscription: the cursor of the newest record shown, or null. */
  newestCursor: () => string | null;
  onEdge: (edge: MemoryEdge) => void;
  onStatus: (status: LiveStatus) => void;
  onAuthError: (error: AuthError) => void;
  /** Called once the socket is acknowledged, with the cursor the subscription started from. */
  onSubscribed?: (after: string | null) => void;
}

export function graphqlWsUrl(location: Location): string {
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`;
}

const MAX_RETRY_SECONDS = 30;
const UNAVAILABLE_RETRY_SECONDS = 60;

function isGraphQLErrorList(value: unknown): value is GraphQLErrorShape[] {
  return Array.isArray(value) && value.every((item) => item && typeof item === 'object' && 'message' in item);
}

type Retry = Extract<LiveStatus, { inSeconds: number }>;

/**
 * What a failure leads to: an auth error signs out; a GraphQL error from the server retries in a minute;
 * a socket that closed or could not open backs off 1, 2, 4 … 30 s (`failures` counts those in a row).
 */
export function afterFailure(
  error: unknown,
  failures: number,
): { signOut: AuthError } | { retry: Retry; failures: number } {
  if (isGraphQLErrorList(error)) {
    const classified = errorFromGraphQL(error);
    if (classified instanceof AuthError) return { signOut: classified };
    const retry: Retry = {
      state: 'unavailable',
      message: classified.message,
      inSeconds: UNAVAILABLE_RETRY_SECONDS,
    };
    return { retry, failures };
  }
  return {
    retry: { state: 'reconnecting', inSeconds: Math.min(MAX_RETRY_SECONDS, 2 ** failures) },
    failures: failures + 1,
  };
}

function connect(options: LiveOptions, connected: () => void): Client {
  return createClient({
    url: options.url,
    connectionParams: { authorization: `Bearer ${options.token}` },
    // Reconnection is ours, so that a new subscription resumes from the newest cursor.
    retryAttempts: 0,
    keepAlive: 20_000,
    on: { connected },
  });
}

/** Starts the subscription; returns a function that stops it for good. */
export function subscribeToMemories(options: LiveOptions): () => void {
  let stopped = false;
  let client: Client | null = null;
  let unsubscribe: (() => void) | null = null;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let failures = 0;
  // Callbacks of a subscription that was torn down (e.g. its late `complete`) are ignored.
  let attempt = 0;

  const teardown = () => {
    attempt += 1;
    unsubscribe?.();
    unsubscribe = null;
    void client?.dispose();
    client = null;
  };

  const retryLater = (status: Retry) => {
    teardown();
    if (stopped) return;
    options.onStatus(status);
    retryTimer = setTimeout(start, status.inSeconds * 1000);
  };

  const fail = (error: unknown) => {
    const next = afterFailure(error, failures);
    if ('signOut' in next) {
      teardown();
      options.onAuthError(next.signOut);
      return;
    }
    failures = next.failures;
    retryLater(next.retry);
  };

  function start() {
    if (stopped) return;
    const current = attempt;
    const active = () => !stopped && current === attempt;
    const after = options.newestCursor();
    options.onStatus({ state: 'connecting' });
    client = connect(options, () => {
      if (!active()) return;
      failures = 0;
      options.onStatus({ state: 'live' });
      options.onSubscribed?.(after);
    });
    unsubscribe = client.subscribe<MemoryAddedResult>(
      { query: MEMORY_ADDED_SUBSCRIPTION, variables: { f: options.filter, after } },
      {
        next: (result) => {
          if (!active()) return;
          if (result.errors?.length) return fail(result.errors);
          const edge = result.data?.memoryAdded;
          if (edge) options.onEdge(edge);
        },
        error: (error) => {
          if (active()) fail(error);
        },
        // The server ended the stream (e.g. restarting): resume like after a drop.
        complete: () => {
          if (active()) fail(new Error('subscription completed'));
        },
      },
    );
  }

  start();
  return () => {
    stopped = true;
    clearTimeout(retryTimer);
    teardown();
  };
}

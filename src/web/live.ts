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
import { CloseCode } from '../transport/ws/close-codes.js';

/** When a failed subscription is tried again: after a dropped socket (backoff) or a server error. */
export type RetryPlan =
  { state: 'reconnecting'; inSeconds: number } | { state: 'unavailable'; message: string; inSeconds: number };

export type LiveStatus =
  | { state: 'connecting' }
  | { state: 'live' }
  /** `retryAt` (epoch ms) is when the next attempt starts: the top bar counts down to it. */
  | (RetryPlan & { retryAt: number });

export interface LiveOptions {
  url: string;
  token: string;
  filter: MemoryFilter;
  /** Admin tokens name the agent; operator tokens may (their own) or leave it to the token. */
  agentId: string | null;
  /** Read at every (re)subscription: the cursor of the newest record received, or null. */
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

function closeCodeOf(error: unknown): number | null {
  if (typeof error !== 'object' || error === null || !('code' in error)) return null;
  return typeof error.code === 'number' ? error.code : null;
}

/**
 * What a failure leads to: an auth error or an auth close code signs out; a GraphQL error from the server
 * retries in a minute; a socket that closed or could not open backs off 1, 2, 4 … 30 s (`failures` counts
 * those in a row).
 */
export function afterFailure(
  error: unknown,
  failures: number,
): { signOut: AuthError } | { retry: RetryPlan; failures: number } {
  if (isGraphQLErrorList(error)) {
    const classified = errorFromGraphQL(error);
    if (classified instanceof AuthError) return { signOut: classified };
    const retry: RetryPlan = {
      state: 'unavailable',
      message: classified.message,
      inSeconds: UNAVAILABLE_RETRY_SECONDS,
    };
    return { retry, failures };
  }
  const closeCode = closeCodeOf(error);
  // Reconnecting with the same token cannot succeed: back to sign-in with the reason.
  if (closeCode === CloseCode.Forbidden) {
    return { signOut: new AuthError('The token was revoked or its run finished', 'ENDED') };
  }
  if (closeCode === CloseCode.Unauthorized) {
    return { signOut: new AuthError('The token is unknown', 'UNAUTHENTICATED') };
  }
  return {
    retry: { state: 'reconnecting', inSeconds: Math.min(MAX_RETRY_SECONDS, 2 ** failures) },
    failures: failures + 1,
  };
}

/** Whole seconds until `retryAt`, rounded up, so the countdown reads 8, 7 … 1. */
export function secondsLeft(retryAt: number, now: number): number {
  return Math.max(0, Math.ceil((retryAt - now) / 1000));
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

/** One socket and its subscription; `active()` is false once it was torn down (late callbacks are ignored). */
function openSubscription(
  options: LiveOptions,
  active: () => boolean,
  fail: (error: unknown) => void,
  acknowledged: () => void,
): { client: Client; unsubscribe: () => void } {
  const after = options.newestCursor();
  options.onStatus({ state: 'connecting' });
  const client = connect(options, () => {
    if (!active()) return;
    acknowledged();
    options.onStatus({ state: 'live' });
    options.onSubscribed?.(after);
  });
  const unsubscribe = client.subscribe<MemoryAddedResult>(
    { query: MEMORY_ADDED_SUBSCRIPTION, variables: { agentId: options.agentId, f: options.filter, after } },
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
  return { client, unsubscribe };
}

export interface LiveSubscription {
  /** Stops it for good. */
  stop: () => void;
  /** While a retry is counting down: try now instead. */
  retryNow: () => void;
}

/** Starts the subscription (B5, L2). */
export function subscribeToMemories(options: LiveOptions): LiveSubscription {
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

  const retryLater = (plan: RetryPlan) => {
    teardown();
    if (stopped) return;
    options.onStatus({ ...plan, retryAt: Date.now() + plan.inSeconds * 1000 });
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      start();
    }, plan.inSeconds * 1000);
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
    const opened = openSubscription(
      options,
      () => !stopped && current === attempt,
      fail,
      () => (failures = 0),
    );
    client = opened.client;
    unsubscribe = opened.unsubscribe;
  }

  start();
  return {
    stop: () => {
      stopped = true;
      clearTimeout(retryTimer);
      teardown();
    },
    retryNow: () => {
      if (stopped || retryTimer === undefined) return;
      clearTimeout(retryTimer);
      retryTimer = undefined;
      start();
    },
  };
}

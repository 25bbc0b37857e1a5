// What moves the Health tab (B8, B9): new records (memoryAdded) and run changes (runChanged, B7), on one
// graphql-ws socket of their own — the list's subscription carries the list's filter, the board needs
// every record of the agent. Each event only asks for a refresh; the page decides when (at most every
// 30 s, health.ts). A dropped socket reconnects with the list's backoff and asks for a refresh once back,
// since events were missed meanwhile; an auth close signs out like the list.
import { createClient, type Client } from 'graphql-ws';
import { HEALTH_EVENTS_SUBSCRIPTION, RUN_CHANGED_SUBSCRIPTION } from './health-queries.js';
import { afterFailure } from './live.js';
import type { AuthError } from './graphql.js';

export interface HealthEventsOptions {
  url: string;
  token: string;
  agentId: string | null;
  onEvent: (source: 'memoryAdded' | 'runChanged' | 'reconnected') => void;
  onAuthError: (error: AuthError) => void;
}

const SERVER_ERROR_RETRY_MS = 60_000;

interface Source {
  name: 'memoryAdded' | 'runChanged';
  query: string;
}

const SOURCES: Source[] = [
  { name: 'memoryAdded', query: HEALTH_EVENTS_SUBSCRIPTION },
  { name: 'runChanged', query: RUN_CHANGED_SUBSCRIPTION },
];

interface SourceHandlers {
  /** False once this socket was replaced or stopped: late callbacks are ignored. */
  active: () => boolean;
  onEvent: (source: Source['name']) => void;
  /** A server error (not auth, not the socket): this subscription only, tried again later. */
  onServerError: () => void;
  onSocketError: (error: unknown) => void;
}

/** One subscription on the shared socket; returns its unsubscribe. */
function subscribeOne(client: Client, source: Source, agentId: string | null, on: SourceHandlers) {
  return client.subscribe(
    { query: source.query, variables: { agentId } },
    {
      next: (result) => {
        if (on.active() && !result.errors?.length) on.onEvent(source.name);
      },
      error: (error) => {
        if (!on.active()) return;
        const next = afterFailure(error, 0);
        if ('retry' in next && next.retry.state === 'unavailable') on.onServerError();
        else on.onSocketError(error);
      },
      complete: () => {
        if (on.active()) on.onSocketError(new Error('subscription completed'));
      },
    },
  );
}

/** Starts both subscriptions; returns their stop. */
export function subscribeToHealthEvents(options: HealthEventsOptions): () => void {
  let stopped = false;
  let client: Client | null = null;
  const unsubscribes = new Map<Source['name'], () => void>();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  let failures = 0;
  let connectedBefore = false;

  const later = (run: () => void, ms: number) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      run();
    }, ms);
    timers.add(timer);
  };

  const teardown = () => {
    for (const unsubscribe of unsubscribes.values()) unsubscribe();
    unsubscribes.clear();
    void client?.dispose();
    client = null;
  };

  /** A dropped socket (or an auth close) ends both: reconnect with backoff, or sign out. */
  const failSocket = (error: unknown) => {
    if (stopped) return;
    const next = afterFailure(error, failures);
    teardown();
    if ('signOut' in next) {
      stopped = true;
      options.onAuthError(next.signOut);
      return;
    }
    failures = next.failures;
    later(start, next.retry.inSeconds * 1000);
  };

  const subscribe = (current: Client, source: Source) => {
    const active = () => client === current && !stopped;
    const unsubscribe = subscribeOne(current, source, options.agentId, {
      active,
      onEvent: options.onEvent,
      // The other subscription keeps the socket; this one tries again in a minute.
      onServerError: () => {
        unsubscribes.delete(source.name);
        later(() => active() && subscribe(current, source), SERVER_ERROR_RETRY_MS);
      },
      onSocketError: failSocket,
    });
    unsubscribes.set(source.name, unsubscribe);
  };

  function start() {
    if (stopped) return;
    const current = createClient({
      url: options.url,
      connectionParams: { authorization: `Bearer ${options.token}` },
      retryAttempts: 0,
      keepAlive: 20_000,
      on: {
        connected: () => {
          failures = 0;
          if (connectedBefore) options.onEvent('reconnected');
          connectedBefore = true;
        },
      },
    });
    client = current;
    for (const source of SOURCES) subscribe(current, source);
  }

  start();
  return () => {
    stopped = true;
    for (const timer of timers) clearTimeout(timer);
    teardown();
  };
}

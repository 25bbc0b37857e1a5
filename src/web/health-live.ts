// What moves the Health tab (issue 26): new records (memoryAdded) and run changes (runChanged, B7), on one
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

/** Starts both subscriptions; returns their stop. */
export function subscribeToHealthEvents(options: HealthEventsOptions): () => void {
  let stopped = false;
  let client: Client | null = null;
  let unsubscribes: (() => void)[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let failures = 0;
  let connectedBefore = false;

  const teardown = () => {
    for (const unsubscribe of unsubscribes) unsubscribe();
    unsubscribes = [];
    void client?.dispose();
    client = null;
  };

  const fail = (error: unknown) => {
    if (stopped) return;
    const next = afterFailure(error, failures);
    teardown();
    if ('signOut' in next) {
      stopped = true;
      options.onAuthError(next.signOut);
      return;
    }
    failures = next.failures;
    timer = setTimeout(start, next.retry.inSeconds * 1000);
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
    const variables = { agentId: options.agentId };
    const sources = [
      ['memoryAdded', HEALTH_EVENTS_SUBSCRIPTION],
      ['runChanged', RUN_CHANGED_SUBSCRIPTION],
    ] as const;
    unsubscribes = sources.map(([source, query]) =>
      current.subscribe(
        { query, variables },
        {
          next: (result) => {
            if (client === current && !result.errors?.length) options.onEvent(source);
          },
          error: (error) => {
            if (client === current) fail(error);
          },
          complete: () => {
            if (client === current) fail(new Error('subscription completed'));
          },
        },
      ),
    );
  }

  start();
  return () => {
    stopped = true;
    clearTimeout(timer);
    teardown();
  };
}

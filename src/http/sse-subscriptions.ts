// GraphQL subscriptions over HTTP (SSE): each shares its group's executions (fanout.ts, L1) and holds
// one of its token's places — shared with the token's WebSockets (S11) — from its start to its end;
// over the bound it is answered 429 before anything runs.
import { finalAsyncIterator, isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { ExecutionArgs } from 'graphql';
import { toGraphQLError } from '../auth/errors.js';
import { TooManyConnectionsError } from '../domain/errors.js';
import type { Fanout } from '../live/fanout.js';
import type { TokenConnections } from '../live/token-connections.js';
import type { GraphQLContext } from '../schema/context.js';

export function sseSubscriptions(fanout: Fanout, connections: TokenConnections): Plugin<GraphQLContext> {
  return {
    onSubscribe({ args, setSubscribeFn, setResultAndStopExecution }) {
      const { caller, request } = args.contextValue;
      // Without a caller the field's scopes refuse it: no stream, no place.
      if (!caller) return setSubscribeFn(fanout.subscribeStream);
      const release = connections.take(caller.tokenKey, 'sse');
      if (!release) {
        const refusal = toGraphQLError(new TooManyConnectionsError(connections.maxPerToken));
        return setResultAndStopExecution({ errors: [refusal] });
      }
      // A response cut before the stream ended (the client left, a write failed) gives it back too.
      request?.signal.addEventListener('abort', release, { once: true });
      setSubscribeFn(async (subscribeArgs: ExecutionArgs) => {
        try {
          const result = await fanout.subscribeStream(subscribeArgs);
          if (isAsyncIterable(result)) return finalAsyncIterator(result, release);
          release(); // refused (auth, input): it never streamed
          return result;
        } catch (error) {
          release();
          throw error;
        }
      });
    },
  };
}

// Builds the service from its parts: Yoga (GraphQL over HTTP and SSE, GraphiQL), graphql-ws on the
// same path, plain HTTP routes and the operator page. No globals: everything comes in `deps`.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { getOperationAST, GraphQLError, type DocumentNode } from 'graphql';
import {
  createYoga,
  maskError as defaultMaskError,
  type Plugin,
  type YogaServerInstance,
} from 'graphql-yoga';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import { describeAuthFailure, MISSING, resolveCaller, type CallerResolution } from './auth/caller.js';
import { internalError, toGraphQLError, unauthenticated } from './auth/errors.js';
import { bearerToken } from './auth/tokens.js';
import { schema } from './schema/index.js';
import type { GraphQLContext } from './schema/context.js';
import { boundQuotedInput } from './domain/text-hygiene.js';
import type { Database } from './store/db.js';
import { ServiceError } from './domain/errors.js';
import type { MemoryEvents } from './realtime/events.js';
import { SharedLoads } from './realtime/shared-loads.js';
import { createSharedSubscribe } from './realtime/shared-subscribe.js';
import type { Logger } from './logger.js';
import { httpRoutes } from './http/routes.js';
import { createAuthGate, MAX_DOCUMENT_BYTES } from './http/auth-gate.js';
import { documentLimitsPlugin } from './http/document-limits.js';
import { TokenSessions } from './realtime/sessions.js';
import { Metrics } from './metrics.js';
import { metricsPlugin } from './http/metrics-plugin.js';
import { browserPolicyPlugin, corsPolicy, verifyWebSocketOrigin } from './http/browser-policy.js';
import { graphiqlAssetsPlugin, introspectionOff, renderOfflineGraphiQL } from './http/graphiql.js';
import { requestLogPlugin } from './http/request-log.js';
import { boundValidationErrors, logError, withBoundedMessage, yogaLogging } from './log-policy.js';
import { costLimitPlugin } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';

export interface ServerDeps {
  db: Database;
  events: MemoryEvents;
  adminToken: string;
  logger: Logger;
  now?: () => Date;
  /** Folder of the built operator page; omitted ⇒ no page. */
  webRoot?: string;
  maxConnectionsPerToken?: number;
  /** How often open sessions' tokens are re-checked (L4: revocations made elsewhere); default 500 ms. */
  sessionCheckMs?: number;
  /** S2: foreign browser origins allowed (CORS and WebSocket); default none. */
  corsOrigins?: string[];
  /** GraphiQL on /graphql (default on); introspection (default on). */
  graphiql?: boolean;
  introspection?: boolean;
}

export interface Server {
  yoga: YogaServerInstance<Record<string, unknown>, GraphQLContext>;
  httpServer: http.Server;
  listen(port: number, host: string): Promise<AddressInfo>;
  /** Stops accepting, finishes in-flight requests, closes WebSockets with 1001. */
  close(): Promise<void>;
}

/** WebSocket close codes of this service (graphql-ws uses 44xx for its own). */
export const CLOSE_SLOW_CONSUMER = 4008;
export const CLOSE_TOO_MANY_CONNECTIONS = 4029;
/** L4: no or unknown token at connection_init. */
export const CLOSE_UNAUTHORIZED = 4401;
/** L4: a token that no longer authenticates (finished run, revoked operator token), at init or later. */
export const CLOSE_FORBIDDEN = 4403;
/** graphql-ws' code for a server fault; the reason never carries the error's message (W5). */
export const CLOSE_INTERNAL_ERROR = 4500;
/** L4: subscriptions one socket may have open at once; the next one is answered with an error. */
export const MAX_SUBSCRIPTIONS_PER_SOCKET = 50;
/** S3: the largest WebSocket message (a write is at most ~600 KB); anonymous sockets cannot make us buffer more. */
export const MAX_WEBSOCKET_MESSAGE_BYTES = 2 * 1024 * 1024;
const MAX_SOCKET_BUFFER_BYTES = 1024 * 1024;
/** Server pings; a peer that misses one is terminated. */
const WS_KEEPALIVE_MS = 12_000;

interface InitialContext {
  request?: Request;
  callerResolution?: CallerResolution;
}

/** Typed service errors become GraphQL errors with their own extensions; anything else is masked and logged (W5: nothing leaks). */
function maskErrors(logger: Logger) {
  return (error: unknown, message: string, isDev?: boolean): Error => {
    const original = error instanceof GraphQLError ? error.originalError : error;
    if (original instanceof ServiceError) {
      return toGraphQLError(original, error instanceof GraphQLError ? error.path : undefined);
    }
    if (error instanceof GraphQLError && !error.originalError) return requestError(error);
    if (error instanceof GraphQLError && error.originalError instanceof GraphQLError)
      return requestError(error.originalError);
    logError(logger, error, 'graphql');
    const masked = defaultMaskError(error, message, isDev);
    return masked instanceof GraphQLError
      ? new GraphQLError(masked.message, { path: masked.path, extensions: { code: 'INTERNAL_SERVER_ERROR' } })
      : masked;
  };
}

/**
 * GraphQL's own errors (parse, validation, variable coercion) echo the request: W10 bounds what they
 * quote, and one without a code or path is the request's fault (a value the schema refused): BAD_USER_INPUT.
 */
function requestError(error: GraphQLError): GraphQLError {
  const code = error.extensions.code ?? (error.path ? undefined : 'BAD_USER_INPUT');
  const message = boundQuotedInput(error.message);
  if (message === error.message && code === error.extensions.code) return error;
  return new GraphQLError(message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: { ...error.extensions, ...(code === undefined ? {} : { code }) },
  });
}

/** S4: no message is echoed back unbounded (a 10 MB variable stays on the server's side of the wire). */
function boundedMasking(mask: ReturnType<typeof maskErrors>): ReturnType<typeof maskErrors> {
  return (error, message, isDev) => {
    const masked = mask(error, message, isDev);
    return masked instanceof GraphQLError ? withBoundedMessage(masked) : masked;
  };
}

export function createServer(deps: ServerDeps): Server {
  const now = deps.now ?? (() => new Date());
  const sharedLoads = new SharedLoads();
  const sessions = new TokenSessions(deps.db.sql, deps.logger, deps.sessionCheckMs);
  const authGate = createAuthGate({ ...deps, graphqlEndpoint: '/graphql' });
  // The WebSocket server exists only below; the gauge reads it when scraped.
  let openSockets = () => 0;
  const metrics = new Metrics({ openSockets: () => openSockets(), pool: deps.db.pool });

  const contextFor = (initial: InitialContext): GraphQLContext => {
    // Resolved once, before the context: per WebSocket operation (onSubscribe) or per request (the gate).
    const resolution =
      initial.callerResolution ?? (initial.request && authGate.resolutionOf(initial.request)) ?? MISSING;
    return {
      db: deps.db,
      caller: resolution.caller,
      authFailure: describeAuthFailure(resolution.failure),
      events: deps.events,
      sharedLoads,
      sessions,
      metrics,
      now,
    };
  };

  const routes: Plugin = httpRoutes({ ...deps, now, metrics });
  const corsOrigins = deps.corsOrigins ?? [];

  const yoga = createYoga<Record<string, unknown>, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    context: (initial) => contextFor(initial as InitialContext),
    // S2: CORS only for CORS_ORIGINS, without credentials; GraphiQL bundled and served by us (offline, CSP).
    cors: corsPolicy(corsOrigins),
    landingPage: false,
    renderGraphiQL: renderOfflineGraphiQL,
    graphiql: deps.graphiql !== false && {
      subscriptionsProtocol: 'WS',
      title: 'Memory service',
      defaultQuery:
        '# Set the Authorization header (Bearer <token>) in the Headers tab.\n{\n  memoryTypes { type count }\n}\n',
    },
    maskedErrors: { maskError: boundedMasking(maskErrors(deps.logger)) },
    logging: yogaLogging(deps.logger),
    // Request limits (GraphQL Armor): parse and validation refuse abusive documents before execution.
    plugins: [
      requestLogPlugin(deps.logger),
      metricsPlugin(metrics),
      browserPolicyPlugin({ corsOrigins, graphqlEndpoint: '/graphql' }),
      ...(deps.graphiql !== false ? [graphiqlAssetsPlugin()] : []),
      ...(deps.introspection === false ? [introspectionOff] : []),
      boundValidationErrors,
      routes,
      authGate.plugin,
      maxTokensPlugin({ n: 2000 }),
      documentLimitsPlugin(),
      maxDepthPlugin({ n: 12, flattenFragments: true }),
      maxAliasesPlugin({ n: 20 }),
      costLimitPlugin({ maxCost: 10_000 }),
    ],
  });

  const httpServer = http.createServer(yoga);
  const wsServer = new WebSocketServer({
    server: httpServer,
    path: yoga.graphqlEndpoint,
    verifyClient: verifyWebSocketOrigin(corsOrigins), // S2
    maxPayload: MAX_WEBSOCKET_MESSAGE_BYTES,
  });
  openSockets = () => wsServer.clients.size;

  const maskForSubscribers = boundedMasking(maskErrors(deps.logger));
  const sharedSubscribe = createSharedSubscribe({
    maskError: (error) => maskForSubscribers(error, 'Unexpected error.'),
    scopeOf: (args) => {
      const caller = (args.contextValue as GraphQLContext).caller;
      if (!caller) return null;
      return caller.kind === 'admin' ? 'admin' : `${caller.kind}:${caller.agentId}`;
    },
  });

  const connectionsPerToken = new Map<string, number>();
  const maxConnectionsPerToken = deps.maxConnectionsPerToken ?? 20;

  type SocketExtra = {
    token?: string | null;
    countedToken?: string;
    endSession?: () => void;
    subscriptionIds?: Set<string>;
  };
  const subscriptionIdsOf = (extra: SocketExtra) => (extra.subscriptionIds ??= new Set());
  useServer<Record<string, unknown>, SocketExtra>(
    {
      // L4: a socket without a valid caller is closed at connection_init.
      onConnect: async (ctx) => {
        const header = ctx.connectionParams?.authorization;
        const token = bearerToken(typeof header === 'string' ? header : null);
        const socket = ctx.extra.socket;
        let resolution: CallerResolution;
        try {
          resolution = await resolveCaller(deps.db, token, deps.adminToken);
        } catch (error) {
          logError(deps.logger, error, 'websocket');
          socket.close(CLOSE_INTERNAL_ERROR, 'Internal server error');
          return false;
        }
        if (!resolution.caller) {
          if (resolution.failure.reason === 'inactive')
            socket.close(CLOSE_FORBIDDEN, 'Forbidden: token no longer valid');
          else socket.close(CLOSE_UNAUTHORIZED, 'Unauthorized: send connectionParams.authorization');
          return false;
        }
        const { tokenKey } = resolution.caller;
        const open = connectionsPerToken.get(tokenKey) ?? 0;
        if (open >= maxConnectionsPerToken) {
          socket.close(CLOSE_TOO_MANY_CONNECTIONS, 'Too many connections for this token');
          return false;
        }
        connectionsPerToken.set(tokenKey, open + 1);
        ctx.extra.countedToken = tokenKey;
        ctx.extra.token = token;
        // S6: revoking the token (or finishing its run) closes the socket.
        if (resolution.caller.kind !== 'admin') {
          ctx.extra.endSession = sessions.register(tokenKey, () =>
            socket.close(CLOSE_FORBIDDEN, 'Forbidden: token revoked or run finished'),
          );
        }
        return true;
      },
      onClose: (ctx) => {
        ctx.extra.endSession?.();
        const tokenKey = ctx.extra.countedToken;
        if (!tokenKey) return;
        const open = (connectionsPerToken.get(tokenKey) ?? 1) - 1;
        if (open > 0) connectionsPerToken.set(tokenKey, open);
        else connectionsPerToken.delete(tokenKey);
      },
      // A consumer that does not read its socket is cut off instead of growing the server's memory.
      onNext: (ctx) => {
        if (ctx.extra.socket.bufferedAmount > MAX_SOCKET_BUFFER_BYTES) {
          ctx.extra.socket.close(CLOSE_SLOW_CONSUMER, 'Slow consumer: resubscribe with after=<last cursor>');
        }
      },
      execute: (args) => (args.rootValue as EnvelopedRoot).execute(args),
      subscribe: (args) => sharedSubscribe(args),
      onSubscribe: async (ctx, id, payload) => {
        // W9: the caller is resolved again for every operation, never cached for the connection.
        let callerResolution: CallerResolution;
        try {
          callerResolution = await resolveCaller(deps.db, ctx.extra.token ?? null, deps.adminToken);
        } catch (error) {
          // The database did not answer: this operation fails with the generic error (W5), the socket stays.
          logError(deps.logger, error, 'websocket');
          return [internalError()];
        }
        // S3: a token that stopped working gets no parsing or validation.
        if (!callerResolution.caller) return [unauthenticated(describeAuthFailure(callerResolution.failure))];
        if (payload.query.length > MAX_DOCUMENT_BYTES) {
          return [requestError(new GraphQLError(`The document is larger than ${MAX_DOCUMENT_BYTES} bytes`))];
        }
        const enveloped = yoga.getEnveloped({ callerResolution, params: payload });
        let document: DocumentNode;
        try {
          document = enveloped.parse(payload.query);
          const errors: readonly GraphQLError[] = enveloped.validate(enveloped.schema, document);
          if (errors.length) return errors.map((error) => withBoundedMessage(requestError(error)));
        } catch (error) {
          // Syntax and limit errors answer this operation; they never close the socket (L4).
          if (error instanceof GraphQLError) return [withBoundedMessage(requestError(error))];
          logError(deps.logger, error, 'websocket');
          return [internalError()];
        }
        // L4: at most 50 open subscriptions per socket; the next is refused, the socket stays open.
        if (getOperationAST(document, payload.operationName)?.operation === 'subscription') {
          if (subscriptionIdsOf(ctx.extra).size >= MAX_SUBSCRIPTIONS_PER_SOCKET) {
            return [
              new GraphQLError(
                `At most ${MAX_SUBSCRIPTIONS_PER_SOCKET} subscriptions may be open on one socket`,
                {
                  extensions: { code: 'TOO_MANY_SUBSCRIPTIONS' },
                },
              ),
            ];
          }
          subscriptionIdsOf(ctx.extra).add(id);
        }
        return {
          schema: enveloped.schema,
          operationName: payload.operationName,
          document,
          variableValues: payload.variables,
          contextValue: await enveloped.contextFactory(),
          // Queries and mutations over the socket run through Yoga's plugins; subscriptions through sharedSubscribe.
          rootValue: { execute: enveloped.execute },
        };
      },
      onComplete: (ctx, id) => {
        subscriptionIdsOf(ctx.extra).delete(id);
      },
      onError: (ctx, id) => {
        subscriptionIdsOf(ctx.extra).delete(id);
      },
      // Never put an error's message into a close reason (W5: nothing leaks), whatever NODE_ENV says.
      isProd: true,
    },
    wsServer,
    WS_KEEPALIVE_MS,
  );

  const sockets = new Set<import('node:net').Socket>();
  httpServer.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  return {
    yoga,
    httpServer,
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        httpServer.once('error', reject);
        httpServer.listen(port, host, () => resolve(httpServer.address() as AddressInfo));
      }),
    async close() {
      sessions.close();
      for (const client of wsServer.clients) client.close(1001, 'Server shutting down');
      await new Promise<void>((resolve) => wsServer.close(() => resolve()));
      const closed = new Promise<void>((resolve) => httpServer.close(() => resolve()));
      httpServer.closeIdleConnections();
      // In-flight requests get a moment to finish; then the rest are cut.
      const timer = setTimeout(() => {
        for (const socket of sockets) socket.destroy();
      }, 3000);
      await closed;
      clearTimeout(timer);
    },
  };
}

interface EnvelopedRoot {
  execute: (args: unknown) => ReturnType<typeof import('graphql').execute>;
}

// GraphQL over WebSocket (graphql-ws) on Yoga's path: who may open a socket (L4, S6), connections per
// token (S11, shared with SSE), subscriptions per socket, slow consumers; operations run through
// Yoga's envelop (its plugins).
import type http from 'node:http';
import { getOperationAST, GraphQLError, type DocumentNode, type ExecutionArgs } from 'graphql';
import type { Context, SubscribePayload } from 'graphql-ws';
import { useServer, type Extra } from 'graphql-ws/use/ws';
import type { YogaServerInstance } from 'graphql-yoga';
import { WebSocket, WebSocketServer, type ServerOptions as WsOptions } from 'ws';
import type { CallerResolver, RequestCaller } from '../../auth/request-caller.js';
import { internalError, unauthenticated } from '../../auth/errors.js';
import { bearerToken } from '../../auth/tokens.js';
import type { Logger } from '../../logger.js';
import { logError, withBoundedMessage } from '../../log-policy.js';
import type { TokenSessions } from '../../live/token-sessions.js';
import type { Fanout } from '../../live/fanout.js';
import type { TokenConnections } from '../../live/token-connections.js';
import { MAX_SUBSCRIPTIONS_PER_SOCKET, SocketOperations } from './socket-operations.js';
import { SocketTarget } from './socket-target.js';
import { CloseCode } from './close-codes.js';

/** S3: the largest WebSocket message (a write is at most ~600 KB); anonymous sockets cannot make us buffer more. */
export const MAX_WEBSOCKET_MESSAGE_BYTES = 2 * 1024 * 1024;
const MAX_SOCKET_BUFFER_BYTES = 1024 * 1024;
/** Server pings; a peer that misses one is terminated. */
const WS_KEEPALIVE_MS = 12_000;

/** What the sockets need of Yoga: its path and its envelop (parse, validate, context and execute with Yoga's plugins). */
export type EnvelopedYoga = Pick<
  YogaServerInstance<Record<string, unknown>, Record<string, unknown>>,
  'graphqlEndpoint' | 'getEnveloped'
>;

/** The initial context of one socket operation: the caller resolved for it (W9), read by Yoga's context factory. */
export interface SocketOperationContext {
  requestCaller: RequestCaller;
  params: SubscribePayload;
  /** S9: aborted when the socket closes; the operation's reads are cancelled with it. */
  signal: AbortSignal;
}

export interface WsServerOptions {
  httpServer: http.Server;
  yoga: EnvelopedYoga;
  /** token → caller, as every transport resolves it (a socket reads the token's liveness every time). */
  callers: CallerResolver;
  logger: Logger;
  sessions: TokenSessions;
  /** S2: the check of a browser's Origin header before the upgrade. */
  verifyClient: WsOptions['verifyClient'];
  /** S11: the token's places, shared with its SSE streams. */
  connections: TokenConnections;
  /** S3: documents larger than this are refused before parsing (the HTTP gate's limit). */
  maxDocumentBytes: number;
  /** Subscriptions: executed and serialised once per group of subscribers (shared with SSE). */
  fanout: Fanout;
  /** W10: GraphQL's own errors (parse, validation, limits), bounded and coded as over HTTP. */
  requestError: (error: GraphQLError) => GraphQLError;
}

export interface WsServer {
  /** Closes every socket with 1001 (going away) and stops accepting. */
  close(): Promise<void>;
}

type SocketExtra = {
  token?: string | null;
  /** S9: aborted when the socket closes. */
  closed?: AbortController;
  releaseConnection?: () => void;
  endSession?: () => void;
  operations?: SocketOperations;
};
type SocketContext = Context<Record<string, unknown>, Extra & Partial<SocketExtra>>;

interface EnvelopedRoot {
  execute: (args: unknown) => ReturnType<typeof import('graphql').execute>;
  /** Where a subscription's records are written (fan-out). */
  target: SocketTarget;
}

/** A consumer that does not read its socket is cut off instead of growing the server's memory. */
function cutOffSlowConsumer(socket: WebSocket): void {
  if (socket.bufferedAmount > MAX_SOCKET_BUFFER_BYTES)
    socket.close(CloseCode.SlowConsumer, 'Slow consumer: resubscribe with after=<last cursor>');
}

const operationsOf = (extra: Partial<SocketExtra>) => (extra.operations ??= new SocketOperations());

/** L4: a socket without a valid caller is closed at connection_init; S6: revocation closes it later. */
function connectHandler(options: WsServerOptions) {
  return async (ctx: SocketContext): Promise<boolean> => {
    const header = ctx.connectionParams?.authorization;
    const token = bearerToken(typeof header === 'string' ? header : null);
    const socket = ctx.extra.socket;
    let resolution: RequestCaller['resolution'];
    try {
      resolution = (await options.callers.resolve(token, { deferLiveness: false })).resolution;
    } catch (error) {
      logError(options.logger, error, 'websocket');
      socket.close(CloseCode.InternalServerError, 'Internal server error');
      return false;
    }
    if (!resolution.caller) {
      if (resolution.failure.reason === 'inactive')
        socket.close(CloseCode.Forbidden, 'Forbidden: token no longer valid');
      else socket.close(CloseCode.Unauthorized, 'Unauthorized: send connectionParams.authorization');
      return false;
    }
    // Closed during the lookup: its onClose has run already, so it must take no place (S11).
    if (socket.readyState !== WebSocket.OPEN) return false;
    const { tokenKey } = resolution.caller;
    const release = options.connections.take(tokenKey, 'ws');
    if (!release) {
      socket.close(CloseCode.TooManyConnections, 'Too many connections for this token');
      return false;
    }
    ctx.extra.releaseConnection = release;
    ctx.extra.token = token;
    // S6: revoking the token (or finishing its run) closes the socket.
    if (resolution.caller.kind !== 'admin') {
      ctx.extra.endSession = options.sessions.register(tokenKey, () =>
        socket.close(CloseCode.Forbidden, 'Forbidden: token revoked or run finished'),
      );
    }
    return true;
  };
}

/** W9: the caller is resolved again for every operation, never cached for the connection. */
async function operationCaller(
  options: WsServerOptions,
  token: string | null,
): Promise<RequestCaller | GraphQLError[]> {
  let requestCaller: RequestCaller;
  try {
    requestCaller = await options.callers.resolve(token, { deferLiveness: false });
  } catch (error) {
    // The database did not answer: this operation fails with the generic error (W5), the socket stays.
    logError(options.logger, error, 'websocket');
    return [internalError()];
  }
  // S3: a token that stopped working gets no parsing or validation.
  if (!requestCaller.caller) return [unauthenticated(requestCaller.resolution.failure)];
  return requestCaller;
}

/** Parses and validates through Yoga's envelop; syntax and limit errors answer this operation, they never close the socket (L4). */
function parseOperation(
  options: WsServerOptions,
  enveloped: ReturnType<EnvelopedYoga['getEnveloped']>,
  query: string,
): DocumentNode | GraphQLError[] {
  try {
    const document = enveloped.parse(query);
    const errors: readonly GraphQLError[] = enveloped.validate(enveloped.schema, document);
    if (errors.length) return errors.map((error) => withBoundedMessage(options.requestError(error)));
    return document;
  } catch (error) {
    if (error instanceof GraphQLError) return [withBoundedMessage(options.requestError(error))];
    logError(options.logger, error, 'websocket');
    return [internalError()];
  }
}

/** L4: at most 50 open subscriptions per socket; the next is refused, the socket stays open. */
function countSubscription(
  ctx: SocketContext,
  id: string,
  document: DocumentNode,
  operationName?: string | null,
) {
  if (getOperationAST(document, operationName)?.operation !== 'subscription') return null;
  if (operationsOf(ctx.extra).addSubscription(id)) return null;
  return [
    new GraphQLError(`At most ${MAX_SUBSCRIPTIONS_PER_SOCKET} subscriptions may be open on one socket`, {
      extensions: { code: 'TOO_MANY_SUBSCRIPTIONS' },
    }),
  ];
}

/** Each operation: its caller (W9), the size limit (S3), parse and validation, the subscription count (L4). */
function subscribeHandler(options: WsServerOptions) {
  const prepare = prepareOperation(options);
  return async (
    ctx: SocketContext,
    id: string,
    payload: SubscribePayload,
  ): Promise<ExecutionArgs | readonly GraphQLError[]> => {
    if (!operationsOf(ctx.extra).begin(id)) {
      ctx.extra.socket.close(CloseCode.SubscriberAlreadyExists, `Subscriber for ${id} already exists`);
      return [new GraphQLError(`Subscriber for ${id} already exists`)];
    }
    const prepared = await prepare(ctx, id, payload);
    // Refused: graphql-ws reports no end of it when the client completed it meanwhile.
    if (Array.isArray(prepared)) operationsOf(ctx.extra).end(id);
    return prepared;
  };
}

/** Its caller (W9), the size limit (S3), parse and validation, the subscription count (L4). */
function prepareOperation(options: WsServerOptions) {
  return async (
    ctx: SocketContext,
    id: string,
    payload: SubscribePayload,
  ): Promise<ExecutionArgs | readonly GraphQLError[]> => {
    const requestCaller = await operationCaller(options, ctx.extra.token ?? null);
    if (Array.isArray(requestCaller)) return requestCaller;
    if (payload.query.length > options.maxDocumentBytes) {
      return [
        options.requestError(
          new GraphQLError(`The document is larger than ${options.maxDocumentBytes} bytes`),
        ),
      ];
    }
    const initial: SocketOperationContext = {
      requestCaller,
      params: payload,
      signal: (ctx.extra.closed ??= new AbortController()).signal,
    };
    const enveloped = options.yoga.getEnveloped(initial);
    const document = parseOperation(options, enveloped, payload.query);
    if (Array.isArray(document)) return document;
    const refused = countSubscription(ctx, id, document, payload.operationName);
    if (refused) return refused;
    return {
      schema: enveloped.schema,
      operationName: payload.operationName,
      document,
      variableValues: payload.variables,
      contextValue: await enveloped.contextFactory(),
      // Queries and mutations over the socket run through Yoga's plugins; subscriptions through sharedSubscribe.
      rootValue: {
        execute: enveloped.execute,
        target: new SocketTarget(ctx.extra.socket, ctx.extra.request.socket, id, cutOffSlowConsumer),
      },
    };
  };
}

export function createWsServer(options: WsServerOptions): WsServer {
  const wsServer = new WebSocketServer({
    server: options.httpServer,
    path: options.yoga.graphqlEndpoint,
    verifyClient: options.verifyClient, // S2
    maxPayload: MAX_WEBSOCKET_MESSAGE_BYTES,
    // Compression would cost a deflate per subscriber and message: the fan-out sends shared bytes.
    perMessageDeflate: false,
  });

  useServer<Record<string, unknown>, SocketExtra>(
    {
      onConnect: connectHandler(options),
      onClose: (ctx) => {
        ctx.extra.closed?.abort();
        ctx.extra.endSession?.();
        ctx.extra.releaseConnection?.();
      },
      onNext: (ctx) => cutOffSlowConsumer(ctx.extra.socket),
      execute: (args) => (args.rootValue as EnvelopedRoot).execute(args),
      subscribe: (args) => options.fanout.subscribeSocket(args, (args.rootValue as EnvelopedRoot).target),
      onSubscribe: subscribeHandler(options),
      onComplete: (ctx, id) => operationsOf(ctx.extra).end(id),
      onError: (ctx, id) => operationsOf(ctx.extra).end(id),
      // Never put an error's message into a close reason (W5: nothing leaks), whatever NODE_ENV says.
      isProd: true,
    },
    wsServer,
    WS_KEEPALIVE_MS,
  );

  return {
    async close() {
      for (const client of wsServer.clients) client.close(1001, 'Server shutting down');
      await new Promise<void>((resolve) => wsServer.close(() => resolve()));
    },
  };
}

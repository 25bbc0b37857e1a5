// GraphQL over WebSocket (graphql-ws) on Yoga's path: the server and its wiring. Who may open a socket
// (L4, S6, S11) is socket-admission.ts; each operation's checks before it runs (W9, S3, L4) are
// operation-preparation.ts; writing records to sockets, slow consumers included, is socket-target.ts.
// Operations run through Yoga's envelop (its plugins).
import type http from 'node:http';
import type { GraphQLError } from 'graphql';
import type { SubscribePayload } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import type { YogaServerInstance } from 'graphql-yoga';
import { WebSocketServer, type ServerOptions as WsOptions } from 'ws';
import type { CallerResolver, RequestCaller } from '../../auth/request-caller.js';
import type { Logger } from '../../logger.js';
import type { TokenSessions } from '../../live/token-sessions.js';
import type { Fanout } from '../../live/fanout.js';
import type { TokenConnections } from '../../live/token-connections.js';
import { subscribeHandler, type EnvelopedRoot } from './operation-preparation.js';
import { admitSocket, operationsOf, releaseSocket, type SocketExtra } from './socket-admission.js';
import { cutOffSlowConsumer, SocketWriter } from './socket-target.js';

/** S3: the largest WebSocket message (a write is at most ~600 KB); anonymous sockets cannot make us buffer more. */
export const MAX_WEBSOCKET_MESSAGE_BYTES = 2 * 1024 * 1024;
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

export function createWsServer(options: WsServerOptions): WsServer {
  const wsServer = new WebSocketServer({
    server: options.httpServer,
    path: options.yoga.graphqlEndpoint,
    verifyClient: options.verifyClient, // S2
    maxPayload: MAX_WEBSOCKET_MESSAGE_BYTES,
    // Compression would cost a deflate per subscriber and message: the fan-out sends shared bytes.
    perMessageDeflate: false,
  });

  const writer = new SocketWriter();
  useServer<Record<string, unknown>, SocketExtra>(
    {
      onConnect: admitSocket(options),
      onClose: releaseSocket,
      onNext: (ctx) => cutOffSlowConsumer(ctx.extra.socket),
      execute: (args) => (args.rootValue as EnvelopedRoot).execute(args),
      subscribe: (args) => options.fanout.subscribeSocket(args, (args.rootValue as EnvelopedRoot).target),
      onSubscribe: subscribeHandler(options, writer),
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

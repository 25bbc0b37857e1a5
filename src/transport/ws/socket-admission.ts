// Who may open a GraphQL WebSocket: a live token at connection_init (L4), one of the token's places
// (S11, shared with its SSE streams), and a session that revocation or the run's finish closes (S6).
import { WebSocket } from 'ws';
import type { Context } from 'graphql-ws';
import type { Extra } from 'graphql-ws/use/ws';
import type { RequestCaller } from '../../auth/request-caller.js';
import { bearerToken } from '../../auth/tokens.js';
import { logError } from '../../log-policy.js';
import { CloseCode } from './close-codes.js';
import { SocketOperations } from './socket-operations.js';
import type { WsServerOptions } from './ws-server.js';

/** What one socket carries from its admission to its close. */
export type SocketExtra = {
  token?: string | null;
  /** S9: aborted when the socket closes. */
  closed?: AbortController;
  releaseConnection?: () => void;
  endSession?: () => void;
  operations?: SocketOperations;
};
export type SocketContext = Context<Record<string, unknown>, Extra & Partial<SocketExtra>>;

export const operationsOf = (extra: Partial<SocketExtra>) => (extra.operations ??= new SocketOperations());

/** L4: a socket without a valid caller is closed at connection_init; S6: revocation closes it later. */
export function admitSocket(options: WsServerOptions) {
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

/** The socket closed: its operations' reads stop (S9), its session and its place end (S6, S11). */
export function releaseSocket(ctx: SocketContext): void {
  ctx.extra.closed?.abort();
  ctx.extra.endSession?.();
  ctx.extra.releaseConnection?.();
}

// Every WebSocket close code the service sends, in one place: graphql-ws' own where one fits
// (its CloseCode), ours beside them. The operator page reads the same names (src/web/live.ts).
import { CloseCode as GraphQLWsCloseCode } from 'graphql-ws';

export const CloseCode = {
  /** L4: the socket's unsent bytes grew past the bound (a slow consumer); it may resume with `after`. */
  SlowConsumer: 4008,
  /** S11: the token already has MAX_CONNECTIONS_PER_TOKEN WebSockets and SSE streams open. */
  TooManyConnections: 4029,
  /** L4: no or unknown token at connection_init. */
  Unauthorized: GraphQLWsCloseCode.Unauthorized,
  /** L4, S6: a token that no longer authenticates (finished run, revoked operator token), at init or later. */
  Forbidden: GraphQLWsCloseCode.Forbidden,
  /** L4: a subscribe whose id is still in flight on the socket. */
  SubscriberAlreadyExists: GraphQLWsCloseCode.SubscriberAlreadyExists,
  /** A server fault; the reason never carries the error's message (W5). */
  InternalServerError: GraphQLWsCloseCode.InternalServerError,
} as const;
export type CloseCode = (typeof CloseCode)[keyof typeof CloseCode];

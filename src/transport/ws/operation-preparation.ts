// One operation on a GraphQL WebSocket, before it runs: its caller resolved again (W9), the document's
// size (S3), parse and validation through Yoga's envelop, the socket's subscription count (L4).
// Refusals answer the operation; the socket stays open (except a reused id, 4409).
import { getOperationAST, GraphQLError, type DocumentNode, type ExecutionArgs } from 'graphql';
import type { SubscribePayload } from 'graphql-ws';
import type { RequestCaller } from '../../auth/request-caller.js';
import { internalError, unauthenticated } from '../../auth/errors.js';
import { logError, withBoundedMessage } from '../../log-policy.js';
import { CloseCode } from './close-codes.js';
import { operationsOf, type SocketContext } from './socket-admission.js';
import { MAX_SUBSCRIPTIONS_PER_SOCKET } from './socket-operations.js';
import type { SocketTarget, SocketWriter } from './socket-target.js';
import type { EnvelopedYoga, SocketOperationContext, WsServerOptions } from './ws-server.js';

/** What an operation hands graphql-ws' execute/subscribe as its root value. */
export interface EnvelopedRoot {
  execute: (args: unknown) => ReturnType<typeof import('graphql').execute>;
  /** Where a subscription's records are written (fan-out). */
  target: SocketTarget;
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
export function subscribeHandler(options: WsServerOptions, writer: SocketWriter) {
  const prepare = prepareOperation(options, writer);
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
function prepareOperation(options: WsServerOptions, writer: SocketWriter) {
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
        target: writer.target(ctx.extra.socket, ctx.extra.request.socket, id),
      },
    };
  };
}

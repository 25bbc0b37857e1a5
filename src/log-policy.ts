// S4: which errors are the client's mistake (info) and which are server faults (error); what of them
// may be logged or echoed back (bounded, no input values).
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Logger } from './logger.js';
import { ServiceError } from './domain/errors.js';

/** S4: an error message in a GraphQL response is cut to this many characters (no 10 MB echo). */
export const MAX_ERROR_MESSAGE_CHARS = 300;

export function boundMessage(message: string): string {
  return message.length > MAX_ERROR_MESSAGE_CHARS
    ? `${message.slice(0, MAX_ERROR_MESSAGE_CHARS - 1)}…`
    : message;
}

/** The same error with its message bounded (path, locations and extensions kept). */
export function withBoundedMessage(error: GraphQLError): GraphQLError {
  if (error.message.length <= MAX_ERROR_MESSAGE_CHARS) return error;
  return new GraphQLError(boundMessage(error.message), {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: error.extensions,
  });
}

/** Validation errors reach the client without passing the masking layer: bound them here (HTTP and WebSocket). */
export const boundValidationErrors: Plugin = {
  onValidate() {
    return ({ result, setResult }) => {
      if (result.some((error) => error.message.length > MAX_ERROR_MESSAGE_CHARS)) {
        setResult(result.map((error) => (error instanceof GraphQLError ? withBoundedMessage(error) : error)));
      }
    };
  },
};

/** Validation, variable, authentication, authorisation and typed write errors: all fixable by the caller. */
export function isClientMistake(error: unknown): boolean {
  if (error instanceof ServiceError) return true;
  if (!(error instanceof GraphQLError)) return false;
  const original = error.originalError;
  return original == null || isClientMistake(original);
}

/** Names, types and paths in graphql-js messages ("$input", "MemoryScope!", "input.links[0]") are kept. */
const GRAPHQL_NAME = /^"[$[]?[_A-Za-z][_0-9A-Za-z.[\]!]*"$/;

/** A client error's message without what the client sent: quoted values and invalid inputs are elided. */
export function describeClientMessage(message: string): string {
  // Cut first (a 10 MB message is not scanned); escapes only occur inside quoted values, which go anyway.
  let described = (message.slice(0, 2000).split('\n\n')[0] ?? '')
    .replace(/\\./g, '')
    .replace(/"[^"]*"/g, (quoted) => (GRAPHQL_NAME.test(quoted) ? quoted : '"…"'));
  // A value left open by the cut is dropped whole.
  const open = described.split('"').length % 2 === 0;
  if (open) described = `${described.slice(0, described.lastIndexOf('"'))}"…`;
  described = described.replace(/got invalid value .*?(?=( at "[^"]*")?; |$)/g, 'got invalid value …');
  return described.length > 200 ? `${described.slice(0, 199)}…` : described;
}

function codeOf(error: unknown): string | undefined {
  if (error instanceof ServiceError) return error.code;
  if (error instanceof GraphQLError) {
    const code = error.extensions?.code;
    if (typeof code === 'string') return code;
    return error.originalError ? codeOf(error.originalError) : undefined;
  }
  return undefined;
}

/** Errors the masking layer already logged at `error` (Yoga would log them a second time). */
export const faultsLogged = new WeakSet<object>();

/** Logs one error by the S4 policy: client mistakes at info without input values, faults at error. */
export function logError(logger: Logger, error: unknown, context: string): void {
  if (isClientMistake(error)) {
    const message = error instanceof Error ? error.message : String(error);
    logger.info({ code: codeOf(error), reason: describeClientMessage(message) }, `${context}: client error`);
    return;
  }
  if (error && typeof error === 'object') {
    if (faultsLogged.has(error)) return;
    faultsLogged.add(error);
  }
  const original = error instanceof GraphQLError && error.originalError ? error.originalError : error;
  logger.error({ err: original }, `${context}: server fault`);
}

/** Yoga's own logging through our logger; the errors it reports are classified like ours. */
export function yogaLogging(logger: Logger) {
  const text = (args: unknown[]) =>
    args.map((arg) => (typeof arg === 'string' ? arg : String(arg))).join(' ');
  const route =
    (level: 'warn' | 'error') =>
    (...args: unknown[]) => {
      const errors = args.filter((arg) => arg instanceof Error);
      if (errors.length) for (const error of errors) logError(logger, error, 'graphql');
      else logger[level](text(args));
    };
  return {
    debug: (...args: unknown[]) => logger.debug(text(args)),
    info: (...args: unknown[]) => logger.info(text(args)),
    warn: route('warn'),
    error: route('error'),
  };
}

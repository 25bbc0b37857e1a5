// The one pino logger (S4): bounded lines, request id and caller kind on every request's lines, no secrets.
import { AsyncLocalStorage } from 'node:async_hooks';
import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';

export type { Logger };

/** S4: no log line is longer than this (bytes, newline included). */
export const MAX_LOG_LINE_BYTES = 2048;
/** Any single string (message, field, error message) is cut to this many characters first. */
const MAX_STRING_CHARS = 400;
const MAX_STACK_CHARS = 800;

/** `unverified`: a token was sent but not yet checked (lines written before the caller is resolved). */
export type CallerKindForLog = 'none' | 'unverified' | 'admin' | 'operator' | 'run';

/** What every line written while handling one request carries (set by src/http/request-log.ts). */
export interface RequestLogFields {
  reqId: string;
  caller: CallerKindForLog;
}

export const requestLogContext = new AsyncLocalStorage<RequestLogFields>();

/** S4: never a token, a record's content or metadata, even if a caller puts one in a log object. */
const REDACTED_PATHS = [
  'authorization',
  'token',
  'content',
  'metadata',
  'variables',
  'connectionParams',
  'headers.authorization',
  'headers.cookie',
  '*.authorization',
  '*.token',
  '*.content',
  '*.metadata',
  '*.variables',
  '*.connectionParams',
  '*.headers.authorization',
  '*.headers.cookie',
];

export function boundText(text: string, max = MAX_STRING_CHARS): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text;
}

function boundValue(value: unknown): unknown {
  if (typeof value === 'string') return boundText(value);
  if (value instanceof Error) return value; // the err serializer bounds it
  if (Array.isArray(value)) return value.slice(0, 20).map(boundValue);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(value).slice(0, 30)) out[key] = boundValue(field);
    return out;
  }
  return value;
}

function framesOf(stack: string): string {
  const frames: string[] = [];
  for (const line of stack.split('\n', 200)) {
    if (line.trimStart().startsWith('at ')) frames.push(line.trim());
    if (frames.length === 12) break;
  }
  return frames.join('\n');
}

function serializeError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { message: boundText(String(error)) };
  const code = (error as { code?: unknown }).code;
  return {
    type: error.constructor?.name ?? 'Error',
    message: boundText(error.message),
    ...(typeof code === 'string' || typeof code === 'number' ? { code } : {}),
    // The frames only: the stack's first line repeats the (possibly huge) message.
    ...(error.stack ? { stack: boundText(framesOf(error.stack), MAX_STACK_CHARS) } : {}),
  };
}

/** Last line of defence: a line still over the limit is replaced by a short, valid one. */
export function enforceLineLimit(line: string): string {
  if (Buffer.byteLength(line) <= MAX_LOG_LINE_BYTES) return line;
  let parsed: Record<string, unknown> = {};
  try {
    parsed = JSON.parse(line) as Record<string, unknown>;
  } catch {
    // Not JSON (cannot happen with pino's serializer); keep only what is safe to keep.
  }
  const short: Record<string, unknown> = { truncated: true };
  for (const key of ['level', 'time', 'reqId', 'caller']) if (key in parsed) short[key] = parsed[key];
  short.msg = boundText(typeof parsed.msg === 'string' ? parsed.msg : '', 200);
  const err = parsed.err as Record<string, unknown> | undefined;
  if (err && typeof err.message === 'string') short.err = { message: boundText(err.message, 200) };
  return `${JSON.stringify(short)}\n`;
}

export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options: LoggerOptions = {
    level,
    base: undefined,
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    serializers: { err: serializeError, error: serializeError },
    mixin: () => {
      const request = requestLogContext.getStore();
      return request ? { reqId: request.reqId, caller: request.caller } : {};
    },
    hooks: {
      // Bound strings before they are serialised: a 10 MB message is never turned into JSON.
      logMethod(args, method) {
        const bounded = (args as unknown[]).map((arg) =>
          arg instanceof Error ? arg : boundValue(arg),
        ) as Parameters<typeof method>;
        method.apply(this, bounded);
      },
      streamWrite: enforceLineLimit,
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

// A remembered token's request whose liveness the gate did not read (TokenIdentities, S14: a
// write or a read in one round trip). A document goes on unchecked only when every root field
// checks the token in its own statement — createMemory's insert (W9), the folded reads (readLive);
// any other document has the token checked before it runs (S6, L4).
import { getOperationAST, Kind, type ExecutionArgs, type ExecutionResult, type GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { isUnverified, requireLive, type CallerResolution } from '../auth/caller.js';
import type { GraphQLContext } from '../schema/context.js';
import type { Database } from '../store/db.js';

/** Root fields that check the caller's token in their own statement, by operation. */
const SELF_CHECKING = {
  mutation: new Set(['createMemory']),
  query: new Set(['memories', 'memoryTypes', 'memory', 'tradingContext']),
} as const;
/** One of those names as a whole word (`memoryAdded` is not `memory`). */
const NAMES_SELF_CHECKING = new RegExp(
  `\\b(${[...SELF_CHECKING.mutation, ...SELF_CHECKING.query].join('|')})\\b`,
);

/**
 * Before parsing: a document that does not even name such a field has the token checked now (S3: a
 * refused one is never parsed), and so does one the gate would answer anonymously once the token is
 * found dead (`anonymousAllowed`: a small introspection), so that it gets that answer here too.
 */
export async function livenessBeforeParse(
  db: Database,
  resolution: CallerResolution,
  query: string | undefined,
  anonymousAllowed: (query: string) => boolean,
): Promise<CallerResolution> {
  const { caller } = resolution;
  if (!isUnverified(caller)) return resolution;
  if (
    query !== undefined &&
    NAMES_SELF_CHECKING.test(query) &&
    !(query.includes('__') && anonymousAllowed(query))
  )
    return resolution;
  return requireLive(db, caller);
}

/**
 * At execution (and at a subscription's start): anything but self-checking root fields has the token
 * checked first. When nothing was answered — a statement found the token dead, or something refused
 * the request before any statement could (a parse or validation error, a refused variable, another
 * agent's id) — the token is checked before the refusal is sent, so a dead token gets what the gate
 * gives it whatever it sent. `resolutions`: the gate's, per request.
 */
export function livenessHooks(
  db: Database,
  refuse: (resolution: CallerResolution) => GraphQLError,
  resolutions: WeakMap<Request, CallerResolution>,
): Pick<Plugin, 'onExecute' | 'onSubscribe' | 'onExecutionResult'> {
  const check = async (args: ExecutionArgs, stop: (result: ExecutionResult) => void) => {
    const context = args.contextValue as GraphQLContext & { request?: Request };
    const { caller } = context;
    if (!isUnverified(caller) || selfChecking(args)) return;
    const resolution = await requireLive(db, caller);
    if (context.request) resolutions.set(context.request, resolution);
    context.caller = resolution.caller;
    context.authFailure = resolution.failure;
    if (!resolution.caller) stop({ errors: [refuse(resolution)] });
  };
  return {
    onExecute: ({ args, setResultAndStopExecution }) => check(args, setResultAndStopExecution),
    onSubscribe: ({ args, setResultAndStopExecution }) => check(args, setResultAndStopExecution),
    onExecutionResult: async ({ request, result, setResult }) => {
      const caller = resolutions.get(request)?.caller;
      if (!isUnverified(caller) || !result || isAsyncIterable(result) || answered(result)) return;
      // A server fault answers every caller alike (W5) and has been logged: nothing to tell apart.
      if (result.errors?.every((error) => error.extensions?.code === 'INTERNAL_SERVER_ERROR')) return;
      const resolution = await requireLive(db, caller);
      if (!resolution.caller) setResult({ errors: [refuse(resolution)] });
    },
  };
}

function isAsyncIterable(value: object): value is AsyncIterable<unknown> {
  return Symbol.asyncIterator in value;
}

/**
 * At least one root field answered (a partial success stays as it is). A result with no field at all
 * (every root field skipped by @skip/@include) answered nothing either.
 */
function answered({ data, errors }: ExecutionResult): boolean {
  const fields = Object.values(data ?? {});
  return errors?.length ? fields.some((value) => value !== null) : fields.length > 0;
}

/**
 * A mutation whose root fields are all createMemory, or a query whose root fields are all folded
 * reads (aliases allowed; no fragments, no `__typename` and no directive at the root: a skipped
 * field or those answer without a statement).
 */
function selfChecking({ document, operationName }: ExecutionArgs): boolean {
  const operation = getOperationAST(document, operationName);
  if (!operation || operation.operation === 'subscription') return false;
  const fields = SELF_CHECKING[operation.operation];
  return operation.selectionSet.selections.every(
    (selection) =>
      selection.kind === Kind.FIELD && fields.has(selection.name.value) && !selection.directives?.length,
  );
}

// A known run's request whose status the gate did not read (RunIdentities, issue 14: a write in one
// round trip). Only a document of createMemory fields goes on unchecked — its insert checks the run's
// status atomically (W9); any other document has the status read before it runs (S6, L4).
import { getOperationAST, Kind, type ExecutionArgs, type ExecutionResult, type GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { describeAuthFailure, requireRunning, type CallerResolution } from '../auth/caller.js';
import { unauthenticated } from '../auth/errors.js';
import { RunNotRunningError } from '../domain/errors.js';
import type { GraphQLContext } from '../schema/context.js';
import type { Database } from '../store/db.js';

/** Before parsing: a document that does not even name createMemory has the status read now (S3: a refused one is never parsed). */
export async function statusBeforeParse(
  db: Database,
  resolution: CallerResolution,
  query: string | undefined,
): Promise<CallerResolution> {
  const { caller } = resolution;
  if (caller?.kind !== 'run' || !caller.statusUnchecked || query?.includes('createMemory')) return resolution;
  return requireRunning(db, caller);
}

/** At execution (and at a subscription's start): anything but createMemory fields alone has the status read first. */
export function statusAtExecution(
  db: Database,
  refuse: (resolution: CallerResolution) => GraphQLError,
): Pick<Plugin, 'onExecute' | 'onSubscribe'> {
  const check = async (args: ExecutionArgs, stop: (result: ExecutionResult) => void) => {
    const context = args.contextValue as GraphQLContext;
    const { caller } = context;
    if (caller?.kind !== 'run' || !caller.statusUnchecked || isWriteOnly(args)) return;
    const resolution = await requireRunning(db, caller);
    context.caller = resolution.caller;
    context.authFailure = describeAuthFailure(resolution.failure);
    if (!resolution.caller) stop({ errors: [refuse(resolution)] });
  };
  return {
    onExecute: async ({ args, setResultAndStopExecution }) => {
      await check(args, setResultAndStopExecution);
      const { caller } = args.contextValue as unknown as GraphQLContext;
      if (caller?.kind !== 'run' || !caller.statusUnchecked) return;
      // Nothing answered: the insert found the run finished, or something refused the request before
      // any insert (a variable the schema refused): answered as the gate answers a finished run.
      return {
        onExecuteDone: async ({ result, setResult }) => {
          if (!('errors' in result) || answered(result as ExecutionResult)) return;
          const refusal = onlyRunRefusals(result as ExecutionResult);
          if (refusal) return setResult({ errors: [unauthenticated(refusal.detail)] });
          const resolution = await requireRunning(db, caller);
          if (!resolution.caller) setResult({ errors: [refuse(resolution)] });
        },
      };
    },
    onSubscribe: ({ args, setResultAndStopExecution }) => check(args, setResultAndStopExecution),
  };
}

/** A result without errors, or with at least one root field answered (a partial success stays as it is). */
function answered({ data, errors }: ExecutionResult): boolean {
  return !errors?.length || Object.values(data ?? {}).some((value) => value !== null);
}

/** The run refusal of an unanswered result whose every error is one, else null. */
function onlyRunRefusals({ errors = [] }: ExecutionResult): RunNotRunningError | null {
  const refusals = errors.map((error) => error.originalError);
  const [first] = refusals;
  return first instanceof RunNotRunningError && refusals.every((e) => e instanceof RunNotRunningError)
    ? first
    : null;
}

/** A mutation whose root fields are all `createMemory` (aliases allowed; no fragments at the root). */
function isWriteOnly({ document, operationName }: ExecutionArgs): boolean {
  const operation = getOperationAST(document, operationName);
  return (
    operation?.operation === 'mutation' &&
    operation.selectionSet.selections.every(
      (selection) => selection.kind === Kind.FIELD && selection.name.value === 'createMemory',
    )
  );
}

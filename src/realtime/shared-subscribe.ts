// Fan-out without N executions: subscribers of one agent that sent the same document and
// variables receive the same result object for each event. The source stream (auth, filter,
// replay) stays per subscriber; only the per-event execution is shared.
import { createHash } from 'node:crypto';
import { createSourceEventStream, execute, type ExecutionArgs, type ExecutionResult, print } from 'graphql';
import { Repeater } from 'graphql-yoga';
import { SharedLoads } from './shared-loads.js';

export interface SharedSubscribeOptions {
  /** Applied to errors of the source stream (the envelop `subscribe` would mask them). */
  maskError: (error: unknown) => Error;
  /** The sharing scope of a subscriber (its agent); null ⇒ never shared. */
  scopeOf: (args: ExecutionArgs) => string | null;
}

export function createSharedSubscribe(options: SharedSubscribeOptions) {
  const results = new SharedLoads();
  const documentKeys = new WeakMap<object, string>();

  const keyOf = (args: ExecutionArgs): string | null => {
    const scope = options.scopeOf(args);
    if (scope === null) return null;
    let documentKey = documentKeys.get(args.document);
    if (!documentKey) {
      documentKey = createHash('sha256').update(print(args.document)).digest('hex');
      documentKeys.set(args.document, documentKey);
    }
    return `${scope}:${documentKey}:${args.operationName ?? ''}:${JSON.stringify(args.variableValues ?? {})}`;
  };

  // graphql-js executes one event exactly as its own subscribe() does; errors are masked here.
  const executeEvent = async (args: ExecutionArgs, payload: unknown): Promise<ExecutionResult> => {
    const result = await execute({ ...args, rootValue: payload });
    return result.errors
      ? { ...result, errors: result.errors.map((e) => options.maskError(e) as never) }
      : result;
  };

  return async function subscribe(
    args: ExecutionArgs,
  ): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
    let source;
    try {
      source = await createSourceEventStream(args);
    } catch (error) {
      return { errors: [options.maskError(error) as never] };
    }
    if (!(Symbol.asyncIterator in source)) {
      return { errors: (source.errors ?? []).map((e) => options.maskError(e) as never) };
    }
    const key = keyOf(args);
    const events = source as AsyncGenerator<{ id?: string }>;
    // A Repeater, so an unsubscribe while the source waits for an event ends it at once.
    return new Repeater<ExecutionResult>(async (push, stop) => {
      let stopped = false;
      void stop.then(() => {
        stopped = true;
        void events.return?.(undefined);
      });
      try {
        for await (const payload of events) {
          if (stopped) break;
          const run = () => executeEvent(args, payload);
          await push(key && payload?.id ? await results.get(`${key}:${payload.id}`, run) : await run());
        }
      } catch (error) {
        await push({ errors: [options.maskError(error) as never] });
      }
      stop();
    });
  };
}

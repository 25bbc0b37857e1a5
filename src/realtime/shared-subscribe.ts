// graphql-ws subscriptions without N executions or N serialisations: a memoryAdded subscription
// joins the fan-out group of its agent, document and variables (fanout.ts), and its records are
// written straight to its socket. The iterator graphql-ws holds yields nothing but a final error:
// it ends when the client completes the subscription or the socket closes. The source (auth,
// filter, replay) stays per subscriber.
import { createHash } from 'node:crypto';
import { createSourceEventStream, type ExecutionArgs, type ExecutionResult, print } from 'graphql';
import { Repeater } from 'graphql-yoga';
import { FanoutGroup, GroupMember, type SocketTarget } from './fanout.js';
import { MemoryAddedSource } from './memory-added.js';

export interface SharedSubscribeOptions {
  /** Applied to errors of the source stream (the envelop `subscribe` would mask them). */
  maskError: (error: unknown) => Error;
  /** The sharing scope of a subscriber (its agent); null ⇒ never shared. */
  scopeOf: (args: ExecutionArgs) => string | null;
  /** The socket and id the subscription's messages go to. */
  targetOf: (args: ExecutionArgs) => SocketTarget | null;
}

export function createSharedSubscribe(options: SharedSubscribeOptions) {
  const groups = new Map<string, FanoutGroup>();
  let nextUnshared = 0;
  const documentKeys = new WeakMap<object, string>();

  const keyOf = (args: ExecutionArgs, scope: string): string => {
    let documentKey = documentKeys.get(args.document);
    if (!documentKey) {
      documentKey = createHash('sha256').update(print(args.document)).digest('hex');
      documentKeys.set(args.document, documentKey);
    }
    return `shared:${scope}:${documentKey}:${args.operationName ?? ''}:${JSON.stringify(args.variableValues ?? {})}`;
  };

  const masked = (error: unknown): ExecutionResult => ({ errors: [options.maskError(error) as never] });

  /** The subscription as one member of its group, until the client or the source ends it. */
  const fanOut = (source: MemoryAddedSource, key: string, target: SocketTarget, args: ExecutionArgs) =>
    new Repeater<ExecutionResult>(async (push, stop) => {
      let group = groups.get(key);
      if (!group) {
        group = new FanoutGroup(args, options.maskError);
        groups.set(key, group);
      }
      const member = new GroupMember(group, target);
      group.members.add(member);
      let ended: (outcome: { error?: unknown }) => void = () => {};
      const sourceEnded = new Promise<{ error?: unknown }>((resolve) => (ended = resolve));
      const unsubscribe = source.subscribe({
        next: (record) => member.deliver(record),
        end: (error) => ended({ error }),
      });
      const outcome = await Promise.race([stop.then(() => null), sourceEnded]);
      member.close();
      unsubscribe();
      group.members.delete(member);
      if (group.members.size === 0 && groups.get(key) === group) groups.delete(key);
      if (outcome?.error !== undefined) await push(masked(outcome.error));
      stop();
    });

  return async function sharedSubscribe(
    args: ExecutionArgs,
  ): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
    let source;
    try {
      source = await createSourceEventStream(args);
    } catch (error) {
      return masked(error);
    }
    if (!(Symbol.asyncIterator in source)) {
      return { errors: (source.errors ?? []).map((e) => options.maskError(e) as never) };
    }
    const target = options.targetOf(args);
    // memoryAdded is the only subscription; anything else is a fault of this code, answered as one.
    if (!(source instanceof MemoryAddedSource) || !target)
      return masked(new Error('subscription source without a fan-out'));
    const scope = options.scopeOf(args);
    // A subscriber without a sharing scope is a group of its own.
    const key = scope === null ? `${nextUnshared++}` : keyOf(args, scope);
    return fanOut(source, key, target, args);
  };
}

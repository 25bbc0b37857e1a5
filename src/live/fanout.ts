// Subscriptions without N executions or N serialisations: a memoryAdded subscription joins the
// fan-out group of its agent, document and variables (fanout-group.ts) for as long as it runs. Over a
// WebSocket its records are written straight to the socket (the iterator graphql-ws holds yields
// nothing but a final error); over SSE the iterator yields the group's shared results. The source
// (auth, filter, replay) stays per subscriber.
import { createHash } from 'node:crypto';
import {
  createSourceEventStream,
  execute,
  Kind,
  print,
  visit,
  type ArgumentNode,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLError,
} from 'graphql';
import { Repeater } from 'graphql-yoga';
import { FanoutGroup, GroupMember, type FanoutTarget } from './fanout-group.js';
import { MAX_PENDING_EVENTS, MemoryAddedSource } from './memory-added.js';
import { queuedStream } from './queued-stream.js';

export interface FanoutOptions {
  /** Applied to errors of the source stream and of execution (W5). */
  maskError: (error: unknown) => GraphQLError;
  /** The sharing scope of a subscriber (its agent); null ⇒ never shared. */
  scopeOf: (args: ExecutionArgs) => string | null;
}

/** What of a document decides a record's execution: its text, and the variables its selections use. */
interface DocumentShape {
  hash: string;
  selectionVariables: string[];
}

/**
 * The root field's own arguments (agentId, filter, after) only shape each subscriber's source; a
 * record's execution depends on the selections alone. So subscribers that differ only there — a
 * resumed client's `after`, above all — share a group.
 */
export function documentShape(document: DocumentNode): DocumentShape {
  const rootArguments = new Set<ArgumentNode>();
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    for (const selection of definition.selectionSet.selections)
      if (selection.kind === Kind.FIELD)
        for (const argument of selection.arguments ?? []) rootArguments.add(argument);
  }
  const names = new Set<string>();
  visit(document, {
    Argument: (argument) => (rootArguments.has(argument) ? false : undefined),
    VariableDefinition: () => false,
    Variable: (variable) => void names.add(variable.name.value),
  });
  return {
    hash: createHash('sha256').update(print(document)).digest('hex'),
    selectionVariables: [...names].sort(),
  };
}

type SubscribeResult = AsyncIterableIterator<ExecutionResult> | ExecutionResult;
/** A subscription's own event stream (not memoryAdded). */
interface PlainSource {
  iterable: AsyncIterable<unknown>;
}
const isPlain = (source: object): source is PlainSource => 'iterable' in source;
/** How a membership ended: null when its consumer stopped it, else with the source's error (if any). */
type Outcome = { error?: unknown } | null;

export class Fanout {
  private readonly groups = new Map<string, FanoutGroup>();

  /** How many groups have members (nothing is left once every subscription ended). */
  get groupCount(): number {
    return this.groups.size;
  }
  private readonly shapes = new WeakMap<DocumentNode, DocumentShape>();
  private nextUnshared = 0;

  constructor(private readonly options: FanoutOptions) {}

  /** graphql-ws: records go to `target` (the socket); the iterator only ends, with an error if there was one. */
  readonly subscribeSocket = async (args: ExecutionArgs, target: FanoutTarget): Promise<SubscribeResult> => {
    const source = await this.open(args);
    if (isPlain(source)) return this.executeEach(source, args);
    if (!(source instanceof MemoryAddedSource)) return source;
    return new Repeater<ExecutionResult>(async (push, stop) => {
      const outcome = await this.run(
        source,
        args,
        target,
        stop.then(() => null),
      );
      if (outcome?.error !== undefined) await push(this.masked(outcome.error));
      stop();
    });
  };

  /** SSE (Yoga): the group's shared results, in order; a stream more than MAX_PENDING_EVENTS behind ends (SLOW_CONSUMER). */
  readonly subscribeStream = async (args: ExecutionArgs): Promise<SubscribeResult> => {
    const source = await this.open(args);
    if (isPlain(source)) return this.executeEach(source, args);
    if (!(source instanceof MemoryAddedSource)) return source;
    return queuedStream<ExecutionResult>(
      MAX_PENDING_EVENTS,
      (sink) => {
        let cancel: (outcome: Outcome) => void = () => {};
        const cancelled = new Promise<Outcome>((resolve) => (cancel = resolve));
        const target: FanoutTarget = { send: (record) => sink.next(record.result) };
        void this.run(source, args, target, cancelled).then((outcome) => sink.end(outcome?.error));
        return (error) => cancel(error === undefined ? null : { error });
      },
      (error) => this.masked(error),
    );
  };

  /**
   * A subscription without fan-out (runChanged: rare events, each executed for its subscriber, as
   * graphql-js does): every event executed with it as the root value; a source error is the last result.
   */
  private executeEach(source: PlainSource, args: ExecutionArgs): AsyncIterableIterator<ExecutionResult> {
    const iterator = source.iterable[Symbol.asyncIterator]();
    const mask = (result: ExecutionResult): ExecutionResult =>
      result.errors ? { ...result, errors: result.errors.map((e) => this.options.maskError(e)) } : result;
    return new Repeater<ExecutionResult>(async (push, stop) => {
      const stopped = stop.then(() => ({ done: true as const, value: undefined }));
      void stopped.then(() => iterator.return?.());
      try {
        for (;;) {
          const next = await Promise.race([iterator.next(), stopped]);
          if (next.done) break;
          await push(mask(await execute({ ...args, rootValue: next.value })));
        }
      } catch (error) {
        await push(this.masked(error));
      }
      stop();
    });
  }

  private masked(error: unknown): ExecutionResult {
    return { errors: [this.options.maskError(error)] };
  }

  private keyOf(args: ExecutionArgs): string {
    const scope = this.options.scopeOf(args);
    // A subscriber without a sharing scope is a group of its own.
    if (scope === null) return `${this.nextUnshared++}`;
    let shape = this.shapes.get(args.document);
    if (!shape) {
      shape = documentShape(args.document);
      this.shapes.set(args.document, shape);
    }
    const variables = args.variableValues ?? {};
    // A variable left out (its default applies) and one sent as null execute differently.
    const used = shape.selectionVariables.map((name) =>
      name in variables ? [name, variables[name]] : [name],
    );
    return `shared:${scope}:${shape.hash}:${args.operationName ?? ''}:${JSON.stringify(used)}`;
  }

  /** The subscription's source, or the result that refuses it (auth, input, a fault of this code). */
  private async open(args: ExecutionArgs): Promise<MemoryAddedSource | PlainSource | ExecutionResult> {
    let source;
    try {
      source = await createSourceEventStream(args);
    } catch (error) {
      return this.masked(error);
    }
    if (!(Symbol.asyncIterator in source))
      return { errors: (source.errors ?? []).map((e) => this.options.maskError(e)) };
    // memoryAdded shares its executions (fan-out); any other subscription executes per subscriber.
    return source instanceof MemoryAddedSource ? source : { iterable: source as AsyncIterable<unknown> };
  }

  /** One member of its group from now until `stopped` resolves or the source ends. */
  private async run(
    source: MemoryAddedSource,
    args: ExecutionArgs,
    target: FanoutTarget,
    stopped: Promise<Outcome>,
  ): Promise<Outcome> {
    const key = this.keyOf(args);
    let group = this.groups.get(key);
    if (!group) {
      group = new FanoutGroup(args, this.options.maskError);
      this.groups.set(key, group);
    }
    let ended: (outcome: Outcome) => void = () => {};
    const sourceEnded = new Promise<Outcome>((resolve) => (ended = resolve));
    const member = new GroupMember(group, target, (error) => ended({ error }));
    group.members.add(member);
    const unsubscribe = source.subscribe({
      next: (record) => member.deliver(record),
      end: (error) => ended({ error }),
    });
    const gone = target.closed?.then((): Outcome => null);
    const outcome = await Promise.race(gone ? [stopped, sourceEnded, gone] : [stopped, sourceEnded]);
    member.close();
    unsubscribe(outcome?.error); // a slow consumer's end is counted by its source
    group.members.delete(member);
    if (group.members.size === 0 && this.groups.get(key) === group) this.groups.delete(key);
    return outcome;
  }
}

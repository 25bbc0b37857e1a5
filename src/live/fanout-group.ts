// Serialise once, send many: the subscribers of one agent that sent the same document and
// variables form a group. Each record the group's subscribers receive is executed once and
// serialised once; each subscriber gets it in its own order through its target: a WebSocket
// (socket-target.ts: its id around the shared bytes) or an SSE stream (the shared result, which
// Yoga serialises through its `stringify`). Backpressure stays per subscriber.
import { execute, type ExecutionArgs, type ExecutionResult, type GraphQLError } from 'graphql';
import { SlowConsumerError } from '../domain/errors.js';
import { MAX_PENDING_EVENTS, type AddedRecord } from './memory-added.js';

/** Rendered records a group keeps for subscribers that are still replaying (a few, small). */
const KEEP_RENDERED = 32;

/** A record as every member of a group receives it: the result (SSE) and its JSON (WebSocket). */
export interface RenderedRecord {
  /** An ExecutionResult whose (hidden) `stringify` returns `json`: Yoga serialises it once, not per stream. */
  result: ExecutionResult;
  json: Buffer;
  /** The record could not be rendered at all (its read failed): the (masked) error members end with. */
  failure?: Error;
}

/** Where one subscription's records go, in order. */
export interface FanoutTarget {
  send(record: RenderedRecord): void;
  /** Resolves when the target is gone (its socket closed): the membership ends then at the latest. */
  readonly closed?: Promise<void>;
}

interface Rendered {
  record: RenderedRecord | null;
  waiting: GroupMember[];
}

/** One subscription of a group: the records it must send, in order, until each one's bytes exist. */
export class GroupMember {
  private readonly backlog: AddedRecord[] = [];
  private closed = false;

  constructor(
    private readonly group: FanoutGroup,
    private readonly target: FanoutTarget,
    /**
     * Called once when the member ends itself: more than MAX_PENDING_EVENTS records wait for their
     * execution (a slow consumer), or a record could not be rendered (the client resumes after the
     * last record it received, and gets it once the database answers again).
     */
    private readonly end: (error: unknown) => void = () => {},
  ) {}

  deliver(record: AddedRecord): void {
    if (this.closed) return;
    if (this.backlog.length >= MAX_PENDING_EVENTS)
      return this.fail(new SlowConsumerError(MAX_PENDING_EVENTS));
    // Started now even behind a backlog: executions overlap, sends keep the order.
    const rendered = this.group.render(record);
    if (this.backlog.length === 0) {
      if (rendered.record) return this.send(rendered.record);
      rendered.waiting.push(this);
    }
    this.backlog.push(record);
  }

  /** Sends the backlog's records whose bytes exist, in order, up to the first still executing. */
  flush(): void {
    while (this.backlog.length > 0 && !this.closed) {
      const rendered = this.group.render(this.backlog[0]!);
      if (!rendered.record) return void rendered.waiting.push(this);
      this.backlog.shift();
      this.send(rendered.record);
    }
  }

  private send(record: RenderedRecord): void {
    if (record.failure) this.fail(record.failure);
    else if (!this.closed) this.target.send(record);
  }

  private fail(error: unknown): void {
    if (this.closed) return;
    this.close();
    this.end(error);
  }

  close(): void {
    this.closed = true;
    this.backlog.length = 0;
  }
}

/** The subscribers of one agent with one document and variables, and the records rendered for them. */
export class FanoutGroup {
  readonly members = new Set<GroupMember>();
  /** By record id (a seq is unique only within its agent, and an admin's group may follow several). */
  private readonly rendered = new Map<string, Rendered>();

  constructor(
    private readonly args: ExecutionArgs,
    private readonly maskError: (error: unknown) => GraphQLError,
  ) {}

  /** The record as its members receive it, executed and serialised on first use (null while executing). */
  render(record: AddedRecord): Rendered {
    let rendered = this.rendered.get(record.id);
    if (rendered) return rendered;
    const entry: Rendered = { record: null, waiting: [] };
    this.rendered.set(record.id, entry);
    void this.execute(record).then((rendered) => {
      entry.record = rendered;
      const waiting = entry.waiting;
      entry.waiting = [];
      for (const member of waiting) member.flush();
      // A failure is not kept: the next delivery of the record executes it again.
      if (rendered.failure) this.rendered.delete(record.id);
      this.forgetOld();
    });
    rendered = entry;
    return rendered;
  }

  /** graphql-js executes the event as its own subscribe() would; errors are masked (W5). */
  private async execute(record: AddedRecord): Promise<RenderedRecord> {
    let result: ExecutionResult;
    try {
      result = await execute({ ...this.args, rootValue: record });
    } catch (error) {
      result = { errors: [this.maskError(error)] };
    }
    if (result.errors) result = { ...result, errors: result.errors.map((e) => this.maskError(e)) };
    const text = JSON.stringify(result);
    Object.defineProperty(result, 'stringify', { value: () => text, enumerable: false });
    // Nothing to deliver (the root field failed, e.g. its read): members end and resume later.
    const failure = result.errors && !result.data ? (result.errors[0] as Error) : undefined;
    return { result, json: Buffer.from(text), failure };
  }

  /** Keeps the newest rendered records (subscribers still replaying may need them); never one executing. */
  private forgetOld(): void {
    if (this.rendered.size <= KEEP_RENDERED) return;
    for (const [id, entry] of this.rendered) {
      if (this.rendered.size <= KEEP_RENDERED) break;
      if (entry.record) this.rendered.delete(id);
    }
  }
}

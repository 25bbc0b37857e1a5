// Serialise once, send many: the WebSocket subscribers of one agent that sent the same document
// and variables form a group. Each record the group's subscribers receive is executed once and
// serialised once; each subscriber's graphql-ws `next` message is its own id around those shared
// bytes, written straight to its socket in its own order. Backpressure stays per subscriber.
import { execute, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { WebSocket } from 'ws';
import type { AddedRecord } from './memory-added.js';

/** Rendered records a group keeps for subscribers that are still replaying (a few, small). */
const KEEP_RENDERED = 32;
const NEXT_TAIL = Buffer.from('}');

/** Where one subscription's messages go: its socket and graphql-ws subscription id. */
export interface SocketTarget {
  socket: WebSocket;
  id: string;
  /** Called after each write: closes a socket whose unsent bytes grew too large (slow consumer). */
  afterWrite: (socket: WebSocket) => void;
}

interface Rendered {
  bytes: Buffer | null;
  waiting: GroupMember[];
}

/** One subscription of a group: the records it must send, in order, until each one's bytes exist. */
export class GroupMember {
  private readonly backlog: AddedRecord[] = [];
  private readonly head: Buffer;
  private closed = false;

  constructor(
    private readonly group: FanoutGroup,
    private readonly target: SocketTarget,
  ) {
    this.head = Buffer.from(`{"id":${JSON.stringify(target.id)},"type":"next","payload":`);
  }

  deliver(record: AddedRecord): void {
    if (this.closed) return;
    if (this.backlog.length === 0) {
      const rendered = this.group.render(record);
      if (rendered.bytes) return this.write(rendered.bytes);
      rendered.waiting.push(this);
    }
    this.backlog.push(record);
  }

  /** Sends the backlog's records whose bytes exist, in order, up to the first still executing. */
  flush(): void {
    while (this.backlog.length > 0 && !this.closed) {
      const rendered = this.group.render(this.backlog[0]!);
      if (!rendered.bytes) return void rendered.waiting.push(this);
      this.backlog.shift();
      this.write(rendered.bytes);
    }
  }

  close(): void {
    this.closed = true;
    this.backlog.length = 0;
  }

  private write(payload: Buffer): void {
    const { socket } = this.target;
    if (socket.readyState !== socket.OPEN) return;
    socket.send(Buffer.concat([this.head, payload, NEXT_TAIL]), { binary: false });
    this.target.afterWrite(socket);
  }
}

/** The subscribers of one agent with one document and variables, and the records rendered for them. */
export class FanoutGroup {
  readonly members = new Set<GroupMember>();
  private readonly rendered = new Map<number, Rendered>();

  constructor(
    private readonly args: ExecutionArgs,
    private readonly maskError: (error: unknown) => Error,
  ) {}

  /** The record's result bytes, executed and serialised on first use (null while executing). */
  render(record: AddedRecord): Rendered {
    let rendered = this.rendered.get(record.seq);
    if (rendered) return rendered;
    const entry: Rendered = { bytes: null, waiting: [] };
    this.rendered.set(record.seq, entry);
    void this.execute(record).then((bytes) => {
      entry.bytes = bytes;
      const waiting = entry.waiting;
      entry.waiting = [];
      for (const member of waiting) member.flush();
      this.forgetOld();
    });
    rendered = entry;
    return rendered;
  }

  /** graphql-js executes the event as its own subscribe() would; errors are masked (W5). */
  private async execute(record: AddedRecord): Promise<Buffer> {
    let result: ExecutionResult;
    try {
      result = await execute({ ...this.args, rootValue: record });
    } catch (error) {
      result = { errors: [this.maskError(error) as never] };
    }
    if (result.errors) result = { ...result, errors: result.errors.map((e) => this.maskError(e) as never) };
    return Buffer.from(JSON.stringify(result));
  }

  /** Keeps the newest rendered records (subscribers still replaying may need them); never one executing. */
  private forgetOld(): void {
    if (this.rendered.size <= KEEP_RENDERED) return;
    for (const [seq, entry] of this.rendered) {
      if (this.rendered.size <= KEEP_RENDERED) break;
      if (entry.bytes) this.rendered.delete(seq);
    }
  }
}

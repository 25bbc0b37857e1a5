// A WebSocket subscriber of a fan-out group: its graphql-ws `next` message is its subscription id
// around the group's shared payload bytes (no JSON.stringify per subscriber), written straight to
// its socket; the messages of one event-loop turn leave in one system call. One SocketWriter per
// WebSocket server holds what its sockets share (the corked set, one close promise per socket).
import type { Socket } from 'node:net';
import type { WebSocket } from 'ws';
import type { FanoutTarget, RenderedRecord } from '../../live/fanout-group.js';
import { CloseCode } from './close-codes.js';

const NEXT_TAIL = Buffer.from('}');
/** L4: a socket whose unsent bytes exceed this is a slow consumer and is closed with 4008. */
const MAX_SOCKET_BUFFER_BYTES = 1024 * 1024;

/** The TCP socket under a WebSocket: the upgrade request's socket, which `ws` writes to. */
type RawSocket = Pick<Socket, 'cork' | 'uncork'>;

/** A consumer that does not read its socket is cut off instead of growing the server's memory. */
export function cutOffSlowConsumer(socket: WebSocket): void {
  if (socket.bufferedAmount > MAX_SOCKET_BUFFER_BYTES)
    socket.close(CloseCode.SlowConsumer, 'Slow consumer: resubscribe with after=<last cursor>');
}

export class SocketWriter {
  /** Sockets written during this turn of the event loop, corked until it ends. */
  private readonly corked = new Set<RawSocket>();
  /** One promise per socket (a listener per subscription would pile up on sockets with many). */
  private readonly closes = new WeakMap<WebSocket, Promise<void>>();
  private readonly uncorkAll = () => {
    for (const raw of this.corked) raw.uncork();
    this.corked.clear();
  };

  /** The subscriber `id` on `socket`, whose TCP socket (the upgrade request's) is `raw`. */
  target(socket: WebSocket, raw: RawSocket, id: string): SocketTarget {
    return new SocketTarget(this, socket, raw, id, cutOffSlowConsumer);
  }

  /**
   * Batches a socket's messages of one event-loop turn into one system call: when the service falls
   * behind, several records reach a socket in one turn, and each would otherwise cost a `writev`.
   */
  corkUntilTurnEnds(raw: RawSocket): void {
    if (this.corked.has(raw)) return;
    if (this.corked.size === 0) setImmediate(this.uncorkAll);
    raw.cork();
    this.corked.add(raw);
  }

  closeOf(socket: WebSocket): Promise<void> {
    let closed = this.closes.get(socket);
    if (!closed) {
      closed =
        socket.readyState === socket.CLOSED
          ? Promise.resolve()
          : new Promise<void>((resolve) => socket.once('close', () => resolve()));
      this.closes.set(socket, closed);
    }
    return closed;
  }
}

export class SocketTarget implements FanoutTarget {
  private readonly head: Buffer;
  /** Nothing outlives its socket, whatever graphql-ws still knows of the operation. */
  readonly closed: Promise<void>;

  constructor(
    private readonly writer: SocketWriter,
    private readonly socket: WebSocket,
    private readonly raw: RawSocket,
    id: string,
    /** Called after each write: closes a socket whose unsent bytes grew too large (slow consumer). */
    private readonly afterWrite: (socket: WebSocket) => void,
  ) {
    this.head = Buffer.from(`{"id":${JSON.stringify(id)},"type":"next","payload":`);
    this.closed = writer.closeOf(socket);
  }

  send(record: RenderedRecord): void {
    const { socket } = this;
    if (socket.readyState !== socket.OPEN) return;
    this.writer.corkUntilTurnEnds(this.raw);
    socket.send(Buffer.concat([this.head, record.json, NEXT_TAIL]), { binary: false });
    this.afterWrite(socket);
  }
}

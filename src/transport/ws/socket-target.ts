// A WebSocket subscriber of a fan-out group: its graphql-ws `next` message is its subscription id
// around the group's shared payload bytes (no JSON.stringify per subscriber), written straight to
// its socket; the messages of one event-loop turn leave in one system call.
import type { Socket } from 'node:net';
import type { WebSocket } from 'ws';
import type { FanoutTarget, RenderedRecord } from '../../live/fanout-group.js';

const NEXT_TAIL = Buffer.from('}');

/** The TCP socket under a WebSocket: the upgrade request's socket, which `ws` writes to. */
type RawSocket = Pick<Socket, 'cork' | 'uncork'>;
/** Sockets written during this turn of the event loop, corked until it ends. */
const corked = new Set<RawSocket>();

function uncorkAll(): void {
  for (const raw of corked) raw.uncork();
  corked.clear();
}

/**
 * Batches a socket's messages of one event-loop turn into one system call: when the service falls
 * behind, several records reach a socket in one turn, and each would otherwise cost a `writev`.
 */
function corkUntilTurnEnds(raw: RawSocket): void {
  if (corked.has(raw)) return;
  if (corked.size === 0) setImmediate(uncorkAll);
  raw.cork();
  corked.add(raw);
}

/** One promise per socket (a listener per subscription would pile up on sockets with many). */
const closes = new WeakMap<WebSocket, Promise<void>>();

function closeOf(socket: WebSocket): Promise<void> {
  let closed = closes.get(socket);
  if (!closed) {
    closed =
      socket.readyState === socket.CLOSED
        ? Promise.resolve()
        : new Promise<void>((resolve) => socket.once('close', () => resolve()));
    closes.set(socket, closed);
  }
  return closed;
}

export class SocketTarget implements FanoutTarget {
  private readonly head: Buffer;
  /** Nothing outlives its socket, whatever graphql-ws still knows of the operation. */
  readonly closed: Promise<void>;

  constructor(
    private readonly socket: WebSocket,
    /** The TCP socket under `socket` (the upgrade request's). */
    private readonly raw: RawSocket,
    id: string,
    /** Called after each write: closes a socket whose unsent bytes grew too large (slow consumer). */
    private readonly afterWrite: (socket: WebSocket) => void,
  ) {
    this.head = Buffer.from(`{"id":${JSON.stringify(id)},"type":"next","payload":`);
    this.closed = closeOf(socket);
  }

  send(record: RenderedRecord): void {
    const { socket } = this;
    if (socket.readyState !== socket.OPEN) return;
    corkUntilTurnEnds(this.raw);
    socket.send(Buffer.concat([this.head, record.json, NEXT_TAIL]), { binary: false });
    this.afterWrite(socket);
  }
}

// A minimal graphql-transport-ws subscriber over `ws`, light enough to run thousands in one test
// process (a graphql-ws client each would be too heavy): one memoryAdded subscription, every edge
// recorded in arrival order, every socket close noted with its code, and a resume on a new socket
// (possibly another instance) with `after` = the last cursor received (L2).
import WebSocket from 'ws';

const QUERY = 'subscription($after: String) { memoryAdded(after: $after) { cursor node { id } } }';

export interface PeerEdge {
  cursor: string;
  id: string;
}

interface ServerMessage {
  type: string;
  id?: string;
  payload?: { data?: { memoryAdded?: { cursor: string; node: { id: string } } }; errors?: unknown };
}

export class WsPeer {
  /** Every edge received, over every socket, in arrival order. */
  readonly edges: PeerEdge[] = [];
  /** The close code of each socket of this peer that closed (in order), whoever closed it. */
  readonly closes: number[] = [];
  /** `error` messages and failed handshakes (a healthy peer has none). */
  readonly errors: unknown[] = [];
  private socket: WebSocket | null = null;
  private subscriptionId = 0;
  private waiter: { count: number; resolve: () => void } | null = null;

  constructor(
    private readonly token: string,
    /** Called when a socket of this peer closes (not when the test terminates it). */
    private readonly onClose: (peer: WsPeer, code: number) => void = () => {},
  ) {}

  /** The last cursor received (null before the first edge). */
  get lastCursor(): string | null {
    return this.edges.at(-1)?.cursor ?? null;
  }

  /** Whether the current socket is open. */
  get open(): boolean {
    return this.socket?.readyState === WebSocket.OPEN;
  }

  /** Opens a socket to `baseUrl` and subscribes live-only; resolves once `subscribe` is sent. */
  connect(baseUrl: string): Promise<void> {
    return this.subscribe(baseUrl, {});
  }

  /** L2: a new socket to `baseUrl`, subscribed with `after` = the last cursor received. */
  resume(baseUrl: string): Promise<void> {
    const after = this.lastCursor;
    if (after === null) return Promise.reject(new Error('nothing received yet: no cursor to resume from'));
    return this.subscribe(baseUrl, { after });
  }

  /** Resolves once at least `count` edges arrived; rejects after `ms`. */
  async waitForEdges(count: number, ms: number): Promise<void> {
    if (this.edges.length >= count) return;
    let timer: NodeJS.Timeout | undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        this.waiter = { count, resolve };
        timer = setTimeout(() => reject(new Error(`${this.edges.length}/${count} edges after ${ms} ms`)), ms);
      });
    } finally {
      clearTimeout(timer);
      this.waiter = null;
    }
  }

  /** Drops the socket without a close handshake and without reporting it as a close. */
  terminate(): void {
    const socket = this.socket;
    this.socket = null;
    socket?.removeAllListeners('close');
    socket?.on('error', () => {});
    socket?.terminate();
  }

  private subscribe(baseUrl: string, variables: Record<string, unknown>): Promise<void> {
    const socket = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
    this.socket = socket;
    const id = String(++this.subscriptionId);
    return new Promise<void>((resolve, reject) => {
      socket.on('open', () =>
        socket.send(
          JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${this.token}` } }),
        ),
      );
      socket.on('message', (data: Buffer) => {
        const message = JSON.parse(data.toString()) as ServerMessage;
        if (message.type === 'connection_ack') {
          socket.send(JSON.stringify({ id, type: 'subscribe', payload: { query: QUERY, variables } }));
          resolve();
        } else if (message.type === 'next' && message.id === id) this.receive(message.payload);
        else if (message.type === 'error' || message.type === 'complete') this.errors.push(message);
      });
      socket.on('error', (error) => {
        this.errors.push(error);
        reject(error);
      });
      socket.on('close', (code: number) => {
        this.closes.push(code);
        reject(new Error(`socket closed ${code} before connection_ack`));
        if (this.socket === socket) this.onClose(this, code);
      });
    });
  }

  private receive(payload: ServerMessage['payload']): void {
    const edge = payload?.data?.memoryAdded;
    if (!edge || payload?.errors) return void this.errors.push(payload);
    this.edges.push({ cursor: edge.cursor, id: edge.node.id });
    if (this.waiter && this.edges.length >= this.waiter.count) this.waiter.resolve();
  }
}

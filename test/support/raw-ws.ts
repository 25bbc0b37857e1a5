// A bare graphql-transport-ws socket for attack tests: the test sends exactly the messages it wants,
// in the order and grouping it wants (several in one burst), and sees every message the server
// writes, by id, in arrival order.
import WebSocket from 'ws';

export interface ServerMessage {
  id?: string;
  type: string;
  payload?: {
    data?: { memoryAdded?: { cursor: string; node: Record<string, unknown> } | null } | null;
    errors?: { message: string; extensions?: Record<string, unknown> }[];
  };
}

export class RawSocket {
  readonly messages: ServerMessage[] = [];
  closeCode: number | null = null;
  private waiters: (() => void)[] = [];

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data: Buffer) => {
      this.messages.push(JSON.parse(data.toString()) as ServerMessage);
      this.notify();
    });
    socket.on('close', (code: number) => {
      this.closeCode = code;
      this.notify();
    });
    socket.on('error', () => {});
  }

  /** Opens a socket to `baseUrl` and waits for `connection_ack`. */
  static async open(baseUrl: string, token: string): Promise<RawSocket> {
    const socket = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
    const raw = new RawSocket(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    raw.send({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } });
    await raw.until(() => raw.messages.some((m) => m.type === 'connection_ack'), 'connection_ack');
    return raw;
  }

  send(message: Record<string, unknown>): void {
    this.socket.send(JSON.stringify(message));
  }

  subscribe(id: string, query: string, variables: Record<string, unknown> = {}): void {
    this.send({ id, type: 'subscribe', payload: { query, variables } });
  }

  complete(id: string): void {
    this.send({ id, type: 'complete' });
  }

  /** The `next` messages of `id`, in arrival order. */
  nexts(id: string): ServerMessage[] {
    return this.messages.filter((m) => m.id === id && m.type === 'next');
  }

  /** The node ids that arrived as `next` data for `id`, in order. */
  nodeIds(id: string): string[] {
    return this.nexts(id).map((m) => String(m.payload?.data?.memoryAdded?.node.id ?? 'error'));
  }

  /** Waits (at most `ms`) until `condition` holds; re-checked on every message and on close. */
  async until(condition: () => boolean, what: string, ms = 5000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!condition()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async close(): Promise<void> {
    if (this.closeCode !== null) return;
    this.socket.close(1000);
    await this.until(() => this.closeCode !== null, 'close');
  }

  private notify(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }
}

/** Counts the listeners the agent feeds hold on the event bus (one per agent with subscribers). */
export function countingListeners<T extends { listen: (...args: any[]) => () => void }>(
  events: T,
): { events: T; open: () => number } {
  let open = 0;
  const listen = events.listen.bind(events);
  const counted = Object.assign(Object.create(events) as T, {
    listen: (...args: Parameters<T['listen']>) => {
      open++;
      const stop = listen(...args);
      let stopped = false;
      return () => {
        if (!stopped) open--;
        stopped = true;
        stop();
      };
    },
  });
  return { events: counted, open: () => open };
}

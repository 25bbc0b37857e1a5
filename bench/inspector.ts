// A full garbage collection in another Node process through its inspector (the process runs with
// `--inspect=127.0.0.1:<port>`, Chrome DevTools Protocol over a WebSocket), so a memory reading
// counts what the process keeps, not garbage its young generation has not collected yet.
import { once } from 'node:events';
import net from 'node:net';
import WebSocket from 'ws';

/** A port free on 127.0.0.1 now (the inspector's; it binds it a moment later). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Collects all garbage in the process whose inspector listens on `port`; resolves with its V8 heap in use (bytes). */
export async function collectGarbage(port: number): Promise<number> {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
    webSocketDebuggerUrl: string;
  }[];
  const socket = new WebSocket(targets[0]!.webSocketDebuggerUrl);
  await once(socket, 'open');
  let next = 0;
  const call = (method: string) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const id = ++next;
      const onMessage = (data: WebSocket.RawData) => {
        const message = JSON.parse(data.toString()) as {
          id?: number;
          result?: Record<string, unknown>;
          error?: { message: string };
        };
        if (message.id !== id) return;
        socket.off('message', onMessage);
        if (message.error) reject(new Error(`${method}: ${message.error.message}`));
        else resolve(message.result ?? {});
      };
      socket.on('message', onMessage);
      socket.send(JSON.stringify({ id, method }));
    });
  try {
    await call('HeapProfiler.collectGarbage');
    const usage = await call('Runtime.getHeapUsage');
    return Number(usage.usedSize);
  } finally {
    socket.close();
  }
}

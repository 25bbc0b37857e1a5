// A full garbage collection in another Node process through its inspector (the process runs with
// `--inspect=127.0.0.1:<port>`, Chrome DevTools Protocol over a WebSocket), so a memory reading
// counts what the process keeps, not garbage its young generation has not collected yet. Every
// step is bounded: an inspector that does not answer fails the row instead of hanging the bench.
import { once } from 'node:events';
import WebSocket from 'ws';

/** The bound of each step: the inspector's target list, its WebSocket handshake, each call. */
const TIMEOUT_MS = 30_000;

/** Collects all garbage in the process whose inspector listens on `port`; resolves with its V8 heap in use (bytes). */
export async function collectGarbage(port: number): Promise<number> {
  const targets = (await (
    await fetch(`http://127.0.0.1:${port}/json/list`, { signal: AbortSignal.timeout(TIMEOUT_MS) })
  ).json()) as {
    webSocketDebuggerUrl: string;
  }[];
  const socket = new WebSocket(targets[0]!.webSocketDebuggerUrl, { handshakeTimeout: TIMEOUT_MS });
  await once(socket, 'open');
  let next = 0;
  const call = (method: string) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const id = ++next;
      const timer = setTimeout(() => {
        socket.off('message', onMessage);
        reject(new Error(`${method}: no answer in ${TIMEOUT_MS} ms`));
      }, TIMEOUT_MS);
      const onMessage = (data: WebSocket.RawData) => {
        const message = JSON.parse(data.toString()) as {
          id?: number;
          result?: Record<string, unknown>;
          error?: { message: string };
        };
        if (message.id !== id) return;
        clearTimeout(timer);
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

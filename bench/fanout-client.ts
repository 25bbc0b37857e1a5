// One load-generator process of the fanout bench (bench/fanout.ts forks several): it opens minimal
// graphql-transport-ws sockets, subscribes them, and measures commit-to-receive latency from each
// record's createdAt (same machine clock). It reports its own CPU, so a saturated generator is
// never mistaken for a slow server.
import WebSocket from 'ws';

export interface OpenCommand {
  cmd: 'open';
  url: string;
  token: string;
  /** Sockets whose subscription receives every record written. */
  active: number;
  /** Sockets whose subscription matches nothing written (watchers of another type). */
  idle: number;
}
export type ClientCommand = OpenCommand | { cmd: 'reset' } | { cmd: 'report' } | { cmd: 'close' };
export interface ClientReport {
  latencies: number[];
  /** Sockets that are not open any more (cut off or failed). */
  closed: number;
  /** Subscriptions the server ended (`error` or `complete`) on a socket that stayed open, and the first such message. */
  ended: number;
  firstEnd: string | null;
  /** CPU seconds this process used since the last reset. */
  cpuSeconds: number;
}

const ACTIVE_QUERY =
  'subscription { memoryAdded(filter: { types: ["tick"] }) { cursor node { id type content createdAt instruments } } }';
const IDLE_QUERY =
  'subscription { memoryAdded(filter: { types: ["never_written"] }) { cursor node { id } } }';
const MARKER = Buffer.from('"createdAt":"');

const sockets: WebSocket[] = [];
let latencies: number[] = [];
let ended = 0;
let firstEnd: string | null = null;
let cpuAtReset = process.cpuUsage();

function open(command: OpenCommand, query: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${command.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
    sockets.push(socket);
    socket.on('open', () =>
      socket.send(
        JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${command.token}` } }),
      ),
    );
    socket.on('message', (data: Buffer) => {
      const at = data.indexOf(MARKER);
      if (at >= 0) {
        const createdAt = data.toString('latin1', at + MARKER.length, at + MARKER.length + 24);
        latencies.push(Date.now() - Date.parse(createdAt));
      } else if (data.includes('"type":"error"') || data.includes('"type":"complete"')) {
        ended++;
        firstEnd ??= data.toString('utf8', 0, Math.min(data.length, 300));
      } else if (data.includes('"connection_ack"')) {
        socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query } }));
        resolve();
      }
    });
    socket.on('error', reject);
  });
}

/** Opens the sockets 200 at a time (a burst of thousands of handshakes would only measure the accept queue). */
async function openAll(command: OpenCommand): Promise<void> {
  const queries = [
    ...Array.from({ length: command.active }, () => ACTIVE_QUERY),
    ...Array.from({ length: command.idle }, () => IDLE_QUERY),
  ];
  for (let start = 0; start < queries.length; start += 200)
    await Promise.all(queries.slice(start, start + 200).map((query) => open(command, query)));
}

process.on('message', (command: ClientCommand) => {
  const reply = (message: unknown) => process.send!(message);
  if (command.cmd === 'open')
    openAll(command).then(
      () => reply({ opened: sockets.length }),
      (error: unknown) => reply({ error: String(error) }),
    );
  else if (command.cmd === 'reset') {
    latencies = [];
    cpuAtReset = process.cpuUsage();
    reply({ reset: true });
  } else if (command.cmd === 'report') {
    const cpu = process.cpuUsage(cpuAtReset);
    const report: ClientReport = {
      latencies,
      closed: sockets.filter((socket) => socket.readyState !== WebSocket.OPEN).length,
      ended,
      firstEnd,
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
    };
    reply(report);
  } else {
    for (const socket of sockets) socket.terminate();
    process.exit(0);
  }
});

// The bench process died (a crash, Ctrl-C): this generator must not outlive it with its sockets open.
process.on('disconnect', () => process.exit(1));

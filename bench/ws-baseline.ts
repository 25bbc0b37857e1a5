// The fanout bench's floor: a bare `ws` server in its own process — no GraphQL, no database,
// `perMessageDeflate: false` — that speaks just enough graphql-transport-ws for the bench's clients
// and, on POST /broadcast, sends one pre-serialised payload of the service's shape to every
// subscribed socket with only the subscription id concatenated (what the stack notes measured).
import http from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';

const subscriptions = new Map<WebSocket, Buffer>();
const TAIL = Buffer.from('}');
let broadcasts = 0;

const server = http.createServer((request, response) => {
  // The bench waits for every subscription through the gauge the service also exposes.
  if (request.method === 'GET' && request.url === '/metrics')
    return void response.end(`memory_subscriptions_open ${subscriptions.size}\n`);
  if (request.method !== 'POST' || request.url !== '/broadcast') return void response.writeHead(404).end();
  const createdAt = new Date().toISOString();
  broadcasts += 1;
  const payload = Buffer.from(
    JSON.stringify({
      data: {
        memoryAdded: {
          cursor: `${createdAt}|00000000-0000-4000-8000-${String(broadcasts).padStart(12, '0')}|${broadcasts}`,
          node: {
            id: `00000000-0000-4000-8000-${String(broadcasts).padStart(12, '0')}`,
            type: 'tick',
            content: `tick ${broadcasts}`,
            createdAt,
            instruments: [],
          },
        },
      },
    }),
  );
  for (const [socket, head] of subscriptions)
    if (socket.readyState === socket.OPEN)
      socket.send(Buffer.concat([head, payload, TAIL]), { binary: false });
  response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
});

const sockets = new WebSocketServer({ server, path: '/graphql', perMessageDeflate: false });
sockets.on('connection', (socket) => {
  socket.on('message', (data: Buffer) => {
    const message = JSON.parse(data.toString()) as { type: string; id?: string };
    if (message.type === 'connection_init') socket.send(JSON.stringify({ type: 'connection_ack' }));
    else if (message.type === 'subscribe')
      subscriptions.set(socket, Buffer.from(`{"id":${JSON.stringify(message.id)},"type":"next","payload":`));
  });
  socket.on('close', () => subscriptions.delete(socket));
});

server.listen(0, '127.0.0.1', () => {
  const address = server.address() as { port: number };
  console.log(`listening on http://127.0.0.1:${address.port}`);
});

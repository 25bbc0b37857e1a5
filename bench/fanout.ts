// fanout: 1,000 graphql-ws subscribers on one instance, 100 writes/s for 20 s. Latency is
// commit-to-receive: a record's createdAt (stamped by the server just before its commit; same
// machine clock) to its arrival at each subscriber.
import { readFileSync } from 'node:fs';
import WebSocket from 'ws';
import { BENCH_ADMIN_TOKEN, benchDatabase, gqlRequest, percentile, startServiceProcess } from './support.js';

const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS || 1000);
const WRITES_PER_SECOND = Number(process.env.BENCH_WRITES_PER_SECOND || 100);
const SECONDS = Number(process.env.BENCH_FANOUT_SECONDS || 20);

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

export async function runFanoutBench(options: { databaseUrl: string }): Promise<string> {
  const url = await benchDatabase(options.databaseUrl, 'memory_bench_fanout', true);
  const service = await startServiceProcess(url, { MAX_CONNECTIONS_PER_TOKEN: String(SUBSCRIBERS) });
  const admin = <T>(query: string, variables: Record<string, unknown> = {}) =>
    gqlRequest<T>(service.url, BENCH_ADMIN_TOKEN, query, variables);
  const sockets: WebSocket[] = [];
  try {
    const { createAgent } = await admin<{ createAgent: { id: string } }>(
      'mutation { createAgent(input: { name: "fanout" }) { id } }',
    );
    const { createProducer } = await admin<{ createProducer: { id: string } }>(
      'mutation($a: UUID!) { createProducer(input: { agentId: $a, kind: ANALYSIS, name: "p" }) { id } }',
      { a: createAgent.id },
    );
    const { startRun } = await admin<{ startRun: { token: string } }>(
      'mutation($p: UUID!) { startRun(input: { producerId: $p }) { token } }',
      {
        p: createProducer.id,
      },
    );
    const { createOperatorToken } = await admin<{ createOperatorToken: { token: string } }>(
      'mutation($a: UUID!) { createOperatorToken(agentId: $a) { token } }',
      { a: createAgent.id },
    );
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const rssBefore = rssMb(service.child.pid!);

    const latencies: number[] = [];
    let ready = 0;
    const query =
      'subscription { memoryAdded(filter: { types: ["tick"] }) { cursor node { id type content createdAt instruments } } }';
    const marker = Buffer.from('"createdAt":"');
    for (let i = 0; i < SUBSCRIBERS; i++) {
      // A minimal graphql-transport-ws peer: the load generator must stay much cheaper than the server.
      const socket = new WebSocket(`${service.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
      sockets.push(socket);
      socket.on('open', () =>
        socket.send(
          JSON.stringify({
            type: 'connection_init',
            payload: { authorization: `Bearer ${createOperatorToken.token}` },
          }),
        ),
      );
      socket.on('message', (data: Buffer) => {
        const at = data.indexOf(marker);
        if (at >= 0) {
          const createdAt = data.toString('latin1', at + marker.length, at + marker.length + 24);
          latencies.push(Date.now() - Date.parse(createdAt));
        } else if (data.includes('"connection_ack"')) {
          socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query } }));
          ready += 1;
        }
      });
      socket.on('error', () => {});
    }
    for (let waited = 0; ready < SUBSCRIBERS && waited < 60_000; waited += 100)
      await new Promise((r) => setTimeout(r, 100));
    await new Promise((resolve) => setTimeout(resolve, 2000)); // subscriptions registered
    const rssConnected = rssMb(service.child.pid!);

    const total = WRITES_PER_SECOND * SECONDS;
    const started = Date.now();
    const writes: Promise<unknown>[] = [];
    for (let n = 0; n < total; n++) {
      const due = started + (n * 1000) / WRITES_PER_SECOND;
      const wait = due - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      writes.push(
        gqlRequest(
          service.url,
          startRun.token,
          'mutation($c: String!) { createMemory(input: { type: "tick", scope: AGENT, content: $c }) { __typename } }',
          {
            c: `tick ${n}`,
          },
        ),
      );
    }
    await Promise.all(writes);
    for (let waited = 0; latencies.length < total * SUBSCRIBERS && waited < 30_000; waited += 200)
      await new Promise((r) => setTimeout(r, 200));
    const rssPeak = rssMb(service.child.pid!);
    latencies.sort((a, b) => a - b);
    const closed = sockets.filter((socket) => socket.readyState !== WebSocket.OPEN).length;
    const lost = total * SUBSCRIBERS - latencies.length;
    return (
      `fanout: p99 ${percentile(latencies, 99).toFixed(0)} ms commit-to-receive, ${ready} subscribers, ${rssPeak.toFixed(0)} MB server RSS` +
      ` (+${(rssConnected - rssBefore).toFixed(0)} MB for the connections; p50 ${percentile(latencies, 50).toFixed(0)} ms; ${total} writes, ${lost} deliveries lost, ${closed} connections closed)`
    );
  } finally {
    for (const socket of sockets) socket.terminate();
    await service.close();
  }
}

// S11 on real sockets: MAX_CONNECTIONS_PER_TOKEN bounds a token's open WebSockets and SSE streams
// together (one count per token on an instance); the one over it is refused — a WebSocket with 4029,
// an SSE request with 429 — and /metrics shows both kinds of open connections.
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sql } from '../../src/store/db.js';

import {
  createAgentFixture,
  startHarness,
  startRun,
  type AgentFixture,
  type Harness,
} from '../support/harness.js';
import { openSocket, openSse, type SseStream } from '../support/live.js';
import { waitUntil } from '../support/write-ledger.js';
import { CloseCode } from '../../src/transport/ws/close-codes.js';

const LIMIT = 20;
let h: Harness;
let base: string;
let fx: AgentFixture;
/** Delays the operator token lookups while set (a slow database during connection_init). */
let lookupDelayMs = 0;

beforeAll(async () => {
  h = await startHarness({ maxConnectionsPerToken: LIMIT });
  const address = await h.server.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${address.port}`;
  fx = await createAgentFixture(h, { instruments: ['BTC'] });
  const query = h.db.sql.query.bind(h.db.sql);
  h.db.sql.query = (async (text: string, params?: unknown[], name?: string) => {
    if (lookupDelayMs && text.includes('FROM "OperatorToken" WHERE "tokenHash"'))
      await new Promise((resolve) => setTimeout(resolve, lookupDelayMs));
    return query(text, params, name);
  }) as Sql['query'];
});
afterAll(async () => {
  await h.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const within = <T>(promise: Promise<T>, ms: number): Promise<T> =>
  Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`not within ${ms} ms`)), ms)),
  ]);

async function newOperatorToken(): Promise<string> {
  const { createOperatorToken } = await h.ok<{ createOperatorToken: { token: string } }>(
    'mutation($a: UUID!) { createOperatorToken(agentId: $a) { token } }',
    { a: fx.agentId },
  );
  return createOperatorToken.token;
}

/** memory_connections_open by transport. */
async function openConnections(): Promise<{ ws: number; sse: number }> {
  const text = await (await h.fetch('/metrics')).text();
  const read = (transport: string) =>
    Number(new RegExp(`^memory_connections_open\\{transport="${transport}"\\} (\\d+)$`, 'm').exec(text)?.[1]);
  return { ws: read('ws'), sse: read('sse') };
}

/** Opens `count` SSE streams and insists that each was accepted. */
async function openStreams(token: string, count: number): Promise<SseStream[]> {
  const streams: SseStream[] = [];
  for (let i = 0; i < count; i++) streams.push(await openSse(base, token, { filter: { types: ['s11'] } }));
  expect(streams.map((stream) => stream.status)).toEqual(streams.map(() => 200));
  return streams;
}

/** The refusal of an SSE request over the bound: 429 before any stream, with the GraphQL error. */
async function expectRefusedStream(token: string): Promise<void> {
  const refused = await openSse(base, token, { filter: { types: ['s11'] } });
  expect(refused.status).toBe(429);
  expect(refused.headers.get('retry-after')).toBe('5');
  await within(refused.ended, 2000);
  expect(refused.results).toEqual([
    {
      errors: [
        {
          message: `At most ${LIMIT} WebSockets and SSE streams may be open at once per token; close one first`,
          extensions: { code: 'TOO_MANY_CONNECTIONS' },
        },
      ],
    },
  ]);
}

describe('S11: one bound for WebSockets and SSE streams', () => {
  it(`S11: with ${LIMIT / 2} WebSockets and ${LIMIT / 2} SSE streams open, the ${LIMIT + 1}st of either kind is refused (4029 / 429); other tokens are not; /metrics shows both`, async () => {
    const token = await newOperatorToken();
    const sockets = Array.from({ length: LIMIT / 2 }, () => openSocket(base, token));
    await within(Promise.all(sockets.map((socket) => socket.connected)), 5000);
    const streams = await openStreams(token, LIMIT / 2);
    try {
      await waitUntil('the connections to be counted', async () => {
        const open = await openConnections();
        return open.ws === LIMIT / 2 && open.sse === LIMIT / 2;
      });
      const extraSocket = openSocket(base, token);
      expect(await within(extraSocket.closed, 2000)).toBe(CloseCode.TooManyConnections);
      await expectRefusedStream(token);

      // Another token of the same agent has a bound of its own.
      const other = await openSse(base, await newOperatorToken(), { filter: { types: ['s11'] } });
      expect(other.status).toBe(200);
      other.close();

      // A stream that ends gives its place back: a WebSocket takes it.
      streams.shift()!.close();
      let taken = false;
      for (let attempt = 0; attempt < 50 && !taken; attempt++) {
        const next = openSocket(base, token);
        taken = await Promise.race([next.connected.then(() => true), next.closed.then(() => false)]);
        if (taken) sockets.push(next);
        else await sleep(50);
      }
      expect(taken).toBe(true);
      await expectRefusedStream(token);
    } finally {
      for (const stream of streams) stream.close();
      await Promise.all(sockets.map((socket) => socket.client.dispose()));
    }
    await waitUntil('every connection to be released', async () => {
      const open = await openConnections();
      return open.ws === 0 && open.sse === 0;
    });
  });

  it(`S11: SSE streams alone stop at ${LIMIT} per token; closing them frees their places`, async () => {
    const token = await newOperatorToken();
    const streams = await openStreams(token, LIMIT);
    await expectRefusedStream(token);
    for (const stream of streams) stream.close();
    await within(Promise.all(streams.map((stream) => stream.ended)), 5000);
    await waitUntil('the streams to be released', async () => (await openConnections()).sse === 0);
    const again = await openStreams(token, LIMIT);
    for (const stream of again) stream.close();
  });

  it('S11: a refused subscription holds no place (a run token may not subscribe over SSE)', async () => {
    const run = await startRun(h, fx.producers.adhoc!.id);
    for (let i = 0; i < LIMIT + 5; i++) {
      const refused = await openSse(base, run.token);
      await within(refused.ended, 2000);
      expect(refused.results[0]?.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    }
    expect((await openConnections()).sse).toBe(0);
    const socket = openSocket(base, run.token);
    await within(socket.connected, 2000);
    await socket.client.dispose();
  });

  it('S11: a WebSocket that leaves while its token is looked up holds no place', async () => {
    const token = await newOperatorToken();
    lookupDelayMs = 150;
    try {
      for (let i = 0; i < LIMIT + 1; i++) {
        const leaving = new WebSocket(`${base.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
        leaving.on('error', () => {});
        await within(new Promise((resolve) => leaving.once('open', resolve)), 2000);
        leaving.send(
          JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } }),
        );
        // Gone before the lookup answers (a graphql-ws client would wait for the ack).
        leaving.terminate();
      }
      await sleep(lookupDelayMs * 2);
    } finally {
      lookupDelayMs = 0;
    }
    const socket = openSocket(base, token);
    await within(socket.connected, 2000);
    await socket.client.dispose();
  });
});

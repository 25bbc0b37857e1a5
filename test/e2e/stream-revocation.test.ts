// S10 across instances: two real server processes on one PostgreSQL, with Redis between them. A
// stream open on instance B — an export, an SSE stream, a WebSocket — ends within 1 s of its token's
// revocation (or its run's finish) through instance A.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { readExportSlowly, type SlowExport } from '../support/export.js';
import { openSocket, openSse, subscribeWs, wsClient } from '../support/live.js';
import { gqlOverHttp, startInstancePair, type ServiceProcess } from '../support/processes.js';
import { CloseCode } from '../../src/transport/ws/close-codes.js';

const ADMIN = 'adm_stream_revocation_token_0123456789';
/** 1,500 records of 16 KB: 24 MB, about 6 s for the slow reader — it cannot finish within 1 s. */
const RECORDS = 1500;
const CONTENT_BYTES = 16 * 1024;
const SLOW_READER_BYTES_PER_SECOND = 4 * 1024 * 1024;

let instances: Awaited<ReturnType<typeof startInstancePair>> | undefined;
let a: ServiceProcess;
let b: ServiceProcess;
let agentId: string;
let producerId: string;

const admin = <T>(query: string, variables: Record<string, unknown> = {}) =>
  gqlOverHttp<T>(a.url, ADMIN, query, variables);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const within = <T>(promise: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)),
  ]);

beforeAll(async () => {
  instances = await startInstancePair(ADMIN);
  ({ a, b } = instances);
  ({
    createAgent: { id: agentId },
  } = await admin<{ createAgent: { id: string } }>(
    'mutation { createAgent(input: { name: "s10" }) { id } }',
  ));
  ({
    createProducer: { id: producerId },
  } = await admin<{ createProducer: { id: string } }>(
    'mutation($a: UUID!) { createProducer(input: { agentId: $a, kind: ANALYSIS, name: "p" }) { id } }',
    { a: agentId },
  ));
  const bulk = 'x'.repeat(CONTENT_BYTES - 16);
  for (let first = 0; first < RECORDS; first += 100) {
    const input = Array.from({ length: 100 }, (_, i) => ({
      agentId,
      type: 'bulk',
      scope: 'AGENT',
      content: `${String(first + i).padStart(8, '0')} ${bulk}`,
      createdAt: new Date(Date.parse('2026-03-01T00:00:00Z') + (first + i) * 60_000).toISOString(),
    }));
    await admin('mutation($input: [ImportMemoryInput!]!) { importMemories(input: $input) { id } }', {
      input,
    });
  }
}, 180_000);

afterAll(async () => {
  await instances?.stop();
});

async function operatorToken(): Promise<{ id: string; token: string }> {
  const { createOperatorToken } = await admin<{
    createOperatorToken: { token: string; operatorToken: { id: string } };
  }>('mutation($a: UUID!) { createOperatorToken(agentId: $a) { token operatorToken { id } } }', {
    a: agentId,
  });
  return { id: createOperatorToken.operatorToken.id, token: createOperatorToken.token };
}

async function startRun(): Promise<{ runId: string; token: string }> {
  const { startRun: run } = await admin<{ startRun: { token: string; run: { id: string } } }>(
    'mutation($p: UUID!) { startRun(input: { producerId: $p }) { token run { id } } }',
    { p: producerId },
  );
  return { runId: run.run.id, token: run.token };
}

/** memory_exports_total{format="ndjson",outcome="revoked"} on instance B. */
async function revokedExportsOnB(): Promise<number> {
  const text = await (await fetch(`${b.url}/metrics`, { signal: AbortSignal.timeout(2000) })).text();
  return Number(/^memory_exports_total\{format="ndjson",outcome="revoked"\} (\d+)$/m.exec(text)?.[1] ?? 0);
}

/** Fails unless instance B counts one more revoked export within 1 s of `since`. */
async function cutOnBWithinOneSecond(before: number, since: number): Promise<void> {
  for (let round = 0; round < 100 && Date.now() - since < 1000; round++) {
    if ((await revokedExportsOnB()) > before) return;
    await sleep(10);
  }
  throw new Error('instance B did not end the export within 1 s');
}

/** The whole export through instance B for `token`, read slowly; resolves once 1 MB has arrived. */
async function slowExportOnB(token: string): Promise<SlowExport> {
  const slow = await readExportSlowly(
    `${b.url}/api/v1/export?format=ndjson`,
    token,
    SLOW_READER_BYTES_PER_SECOND,
  );
  expect(slow.status).toBe(200);
  for (let round = 0; round < 500 && slow.received() < 1024 * 1024; round++) await sleep(10);
  expect(slow.received()).toBeGreaterThanOrEqual(1024 * 1024);
  return slow;
}

/** The download ended without its last chunk, short of the agent's records (a cut, never a clean end). */
async function expectCut(slow: SlowExport): Promise<void> {
  const ended = await within(slow.ended, 20_000, 'the cut download');
  expect(ended.complete).toBe(false);
  expect(ended.text.split('\n').length - 1).toBeLessThan(RECORDS);
}

describe('S10: streams end with their token on every instance', () => {
  it('S10: an export read through instance B is cut within 1 s of revokeOperatorToken through instance A', async () => {
    const operator = await operatorToken();
    const slow = await slowExportOnB(operator.token);
    try {
      const before = await revokedExportsOnB();
      const revokedAt = Date.now();
      await admin('mutation($id: UUID!) { revokeOperatorToken(id: $id) { id } }', { id: operator.id });
      await cutOnBWithinOneSecond(before, revokedAt);
      await expectCut(slow);
    } finally {
      slow.destroy();
    }
  }, 60_000);

  it("S10: finishRun through instance A cuts the run token's export and closes its WebSocket on instance B within 1 s", async () => {
    const run = await startRun();
    const socket = openSocket(b.url, run.token);
    await within(socket.connected, 5000, 'the run’s socket');
    const slow = await slowExportOnB(run.token);
    try {
      const before = await revokedExportsOnB();
      const finishedAt = Date.now();
      await admin('mutation($r: UUID!) { finishRun(runId: $r, status: SUCCEEDED) { id } }', { r: run.runId });
      await cutOnBWithinOneSecond(before, finishedAt);
      expect(await within(socket.closed, 1000 - (Date.now() - finishedAt), 'the socket')).toBe(
        CloseCode.Forbidden,
      );
      await expectCut(slow);
    } finally {
      slow.destroy();
      await socket.client.dispose();
    }
  }, 60_000);

  it('S10: an SSE stream and a WebSocket subscription on instance B end within 1 s of the revocation through instance A', async () => {
    const operator = await operatorToken();
    const run = await startRun();
    let closeCode: number | null = null;
    const client = wsClient(b.url, operator.token, { onClose: (code) => (closeCode = code) });
    const ws = subscribeWs(client, { filter: { types: ['s10_live'] } });
    const sse = await openSse(b.url, operator.token, { filter: { types: ['s10_live'] } });
    expect(sse.status).toBe(200);
    // Both are live once a record written through A has reached them on B.
    for (let attempt = 0; attempt < 50 && (ws.edges.length === 0 || sse.results.length === 0); attempt++) {
      await gqlOverHttp(
        a.url,
        run.token,
        'mutation { createMemory(input: { type: "s10_live", scope: AGENT, content: "probe" }) { __typename } }',
      );
      await sleep(100);
    }
    expect(ws.edges.length).toBeGreaterThan(0);
    expect(sse.results.length).toBeGreaterThan(0);

    const revokedAt = Date.now();
    await admin('mutation($id: UUID!) { revokeOperatorToken(id: $id) { id } }', { id: operator.id });
    const endedAt = await within(sse.ended, 1000, 'the SSE stream');
    expect(endedAt - revokedAt).toBeLessThan(1000);
    expect(sse.results.at(-1)?.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    await within(ws.closed, 1000 - (Date.now() - revokedAt), 'the WebSocket');
    for (let round = 0; round < 50 && closeCode === null; round++) await sleep(10);
    expect(closeCode).toBe(CloseCode.Forbidden);
    await client.dispose();
  }, 60_000);
});

// L3: two real server processes on one PostgreSQL, fanned out through Redis.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentOverHttp, gqlOverHttp, startInstancePair, type ServiceProcess } from '../support/processes.js';
import { subscribeWs, wsClient } from '../support/live.js';

const ADMIN = 'adm_multi_instance_token_0123456789';
let instances: Awaited<ReturnType<typeof startInstancePair>> | undefined;
let a: ServiceProcess;
let b: ServiceProcess;

beforeAll(async () => {
  instances = await startInstancePair(ADMIN);
  ({ a, b } = instances);
}, 120_000);

afterAll(async () => {
  await instances?.stop();
});

describe('several instances (L3)', () => {
  it('L3: a record written through one instance reaches a subscriber of another within 1 s', async () => {
    await gqlOverHttp(a.url, ADMIN, 'mutation { upsertInstrument(input: { id: "ETH" }) { id } }');
    const { runToken, operatorToken } = await agentOverHttp(a.url, ADMIN, 'multi');

    const client = wsClient(b.url, operatorToken);
    // Live-only subscription on B; wait until it is established by receiving a first probe record.
    const sub = subscribeWs(client, {});
    const write = (content: string) =>
      gqlOverHttp<{ createMemory: { memory: { id: string } } }>(
        a.url,
        runToken,
        'mutation($c: String!) { createMemory(input: { type: "note", scope: AGENT, content: $c }) { ... on CreateMemorySuccess { memory { id } } } }',
        { c: content },
      );
    for (let attempt = 0; sub.edges.length === 0 && attempt < 50; attempt++) {
      await write(`probe ${attempt}`);
      await sub.waitFor(1, 200).catch(() => undefined);
    }
    expect(sub.edges.length).toBeGreaterThan(0);

    const started = Date.now();
    const { createMemory } = await write('crosses instances');
    while (!sub.edges.some((e) => e.node.id === createMemory.memory.id) && Date.now() - started < 1000) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(sub.edges.map((e) => e.node.id)).toContain(createMemory.memory.id);
    expect(Date.now() - started).toBeLessThan(1000);
    await sub.stop();
    await client.dispose();
  });

  it('SIGTERM on an idle instance exits 0 within 5 s', async () => {
    const { code, ms } = await b.stop('SIGTERM');
    expect(code).toBe(0);
    expect(ms).toBeLessThan(5000);
  });
});

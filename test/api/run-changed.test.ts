// B7: Subscription.runChanged over a real WebSocket (started, finished, cancelled; only
// the agent's own runs; run tokens refused; revocation ends it), and across instances over Redis.
import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import type { RunChangedEvent } from '../../src/live/events.js';
import { createLiveEvents } from '../../src/live/index.js';
import {
  ADMIN_TOKEN,
  createAgentFixture,
  startHarness,
  startRun,
  writeOk,
  type AgentFixture,
  type Harness,
} from '../support/harness.js';
import { wsClient } from '../support/live.js';
import { startOwnRedis, type OwnRedis } from '../support/own-redis.js';

const RUN_CHANGED = `subscription($a: UUID) { runChanged(agentId: $a) { id agentId status recordCount empty } }`;
type Change = { id: string; agentId: string; status: string; recordCount: number; empty: boolean };

let h: Harness;
let baseUrl: string;
let a: AgentFixture;
let b: AgentFixture;
const clients: Client[] = [];

beforeAll(async () => {
  h = await startHarness();
  const address = await h.server.listen(0, '127.0.0.1');
  baseUrl = `http://127.0.0.1:${address.port}`;
  a = await createAgentFixture(h);
  b = await createAgentFixture(h);
});
afterAll(async () => {
  for (const client of clients) await client.dispose();
  await h?.close();
});

/** Subscribes and collects changes (or the error that ended it); resolves once the server acknowledged. */
function subscribe(token: string | null, variables: Record<string, unknown> = {}) {
  const client = wsClient(baseUrl, token);
  clients.push(client);
  const changes: Change[] = [];
  const errors: unknown[] = [];
  let wake = () => {};
  client.subscribe<{ runChanged: Change }>(
    { query: RUN_CHANGED, variables },
    {
      next: (result) => {
        if (result.errors?.length) errors.push(result.errors);
        else if (result.data) changes.push(result.data.runChanged);
        wake();
      },
      error: (error) => {
        errors.push(error);
        wake();
      },
      complete: () => wake(),
    },
  );
  const until = async (done: () => boolean, ms = 5000) => {
    const deadline = Date.now() + ms;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`timed out: ${JSON.stringify({ changes, errors })}`);
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, 50);
      });
    }
  };
  return { changes, errors, until };
}

/** Waits until the subscription is registered (a run change it must hear, then it is dropped from the list). */
async function ready(sub: ReturnType<typeof subscribe>, fx: AgentFixture) {
  await sub.until(() => sub.changes.length > 0 || sub.errors.length > 0, 100).catch(() => {});
  for (let i = 0; i < 50 && sub.changes.length === 0 && sub.errors.length === 0; i++) {
    await startRun(h, fx.producers.adhoc!.id);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  sub.changes.splice(0);
}

describe('B7: runChanged, live run changes for the desk', () => {
  it('B7: runChanged: an operator hears its agent’s runs start, finish and get cancelled — not another agent’s', async () => {
    const sub = subscribe(a.operatorToken);
    await ready(sub, a);
    await startRun(h, b.producers.adhoc!.id); // another agent: never delivered
    const run = await startRun(h, a.producers.adhoc!.id);
    await sub.until(() => sub.changes.some((c) => c.id === run.runId));
    await writeOk(h, run.token, { type: 'note', scope: 'AGENT', content: 'one record' });
    await h.ok('mutation($r: UUID!) { finishRun(runId: $r, status: SUCCEEDED) { id } }', { r: run.runId });
    const cancelled = await startRun(h, a.producers.adhoc!.id);
    // A change is delivered as the run is then (the field's description): hear the start before the end.
    await sub.until(() => sub.changes.some((c) => c.id === cancelled.runId));
    await h.ok('mutation($r: UUID!) { finishRun(runId: $r, status: CANCELLED) { id } }', {
      r: cancelled.runId,
    });
    await sub.until(() => sub.changes.filter((c) => c.id === cancelled.runId).length === 2);
    const mine = sub.changes.filter((c) => [run.runId, cancelled.runId].includes(c.id));
    expect(mine.map((c) => [c.id, c.status])).toEqual([
      [run.runId, 'RUNNING'],
      [run.runId, 'SUCCEEDED'],
      [cancelled.runId, 'RUNNING'],
      [cancelled.runId, 'CANCELLED'],
    ]);
    expect(mine[1]).toMatchObject({ recordCount: 1, empty: false });
    expect(sub.changes.every((c) => c.agentId === a.agentId)).toBe(true);
  });

  it('B7: runChanged: the admin names the agent; an operator may not name another agent; run tokens may not subscribe', async () => {
    const admin = subscribe(ADMIN_TOKEN, { a: b.agentId });
    await ready(admin, b);
    const run = await startRun(h, b.producers.adhoc!.id);
    await admin.until(() => admin.changes.some((c) => c.id === run.runId));

    const foreign = subscribe(a.operatorToken, { a: b.agentId });
    await foreign.until(() => foreign.errors.length > 0);
    expect(JSON.stringify(foreign.errors)).toContain('FORBIDDEN');

    const review = await startRun(h, a.producers.review!.id);
    const asRun = subscribe(review.token);
    await asRun.until(() => asRun.errors.length > 0);
    expect(JSON.stringify(asRun.errors)).toContain('FORBIDDEN');
  });
});

describe('L3: runChanged across instances', () => {
  let redis: OwnRedis;
  beforeAll(async () => {
    redis = await startOwnRedis();
  });
  afterAll(async () => {
    await redis?.remove();
  });

  it('L3: runChanged: a run change published on one instance reaches listeners on another through Redis (L3)', async () => {
    const logger = createLogger('silent');
    const one = await createLiveEvents({ redisUrl: redis.url, logger });
    const two = await createLiveEvents({ redisUrl: redis.url, logger });
    try {
      const heard: RunChangedEvent[] = [];
      const stop = two.listenRuns(a.agentId, (event) => heard.push(event));
      const event: RunChangedEvent = {
        runId: '7f0e7a4e-1d8c-4d8e-9f55-8a1f0c1f9a11',
        agentId: a.agentId,
        status: 'FAILED',
      };
      // The subscription to the channel may still be on its way: publish until it is heard.
      for (let i = 0; i < 50 && heard.length === 0; i++) {
        await one.publishRunChanged(event);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(heard[0]).toEqual(event);
      stop();
    } finally {
      await one.close();
      await two.close();
    }
  });
});

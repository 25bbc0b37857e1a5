import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAgentFixture,
  startHarness,
  startRun,
  writeOk,
  type AgentFixture,
  type Harness,
} from '../support/harness.js';

let h: Harness;
let fx: AgentFixture;
let run: { runId: string; token: string };

beforeAll(async () => {
  h = await startHarness();
  fx = await createAgentFixture(h, { instruments: ['BTC', 'ETH'] });
  run = await startRun(h, fx.producers.analysis!.id, '2026-09-30T12:00:00Z');
});
afterAll(async () => {
  await h.close();
});

function post(body: unknown, token: string | null = run.token) {
  return h.fetch('/api/v1/memories', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const body = (extra: Record<string, unknown> = {}) => ({
  type: 'ema_handoff',
  scope: 'INSTRUMENTS',
  instruments: ['ETH'],
  content: 'ETH 5m: fast EMA below slow',
  metadata: { handoff_version: 1 },
  timeframe: '5m',
  ...extra,
});

describe('POST /api/v1/memories (REST mirror of createMemory)', () => {
  it('201 with the record in snake_case and the stamped expires_at (X5)', async () => {
    h.clock.set('2026-09-30T12:01:10Z');
    const response = await post(body());
    h.clock.real();
    expect(response.status).toBe(201);
    const json = await response.json();
    expect(json.expires_at).toBe('2026-09-30T12:10:00.000Z');
    expect(json.memory).toMatchObject({
      agent_id: fx.agentId,
      type: 'ema_handoff',
      scope: 'INSTRUMENTS',
      instruments: ['ETH'],
      timeframe: '5m',
      expires_at: '2026-09-30T12:10:00.000Z',
      expiry_policy: 'analysis_schedule_v2',
      metadata: {
        handoff_version: 1,
        stale_after: '2026-09-30T12:10:00.000Z',
        expiry_policy: 'analysis_schedule_v2',
      },
      provenance: { run_id: run.runId, producer_name: 'analysis', kind: 'ANALYSIS', schedule: '5m' },
      links: [],
    });
  });

  it('W4: 422 invalid_memory_link with link_index and the exact message, same for foreign and unknown ids', async () => {
    const own = await writeOk(h, run.token, { type: 'x', scope: 'AGENT', content: 'own' });
    const other = await createAgentFixture(h, { instruments: ['BTC'] });
    const otherRun = await startRun(h, other.producers.adhoc!.id);
    const foreign = await writeOk(h, otherRun.token, { type: 'x', scope: 'AGENT', content: 'theirs' });
    const answers = [];
    for (const id of [foreign.id, randomUUID()]) {
      const response = await post(
        body({
          links: [
            { target_memory_id: own.id, link_type: 'evidence' },
            { target_memory_id: id, link_type: 'evidence' },
          ],
        }),
      );
      expect(response.status).toBe(422);
      answers.push(await response.json());
    }
    expect(answers[0]).toEqual(answers[1]);
    expect(answers[0]).toEqual({
      error:
        'links[1].target_memory_id is unavailable; copy the exact ID from authorized same-agent context and retry once',
      code: 'invalid_memory_link',
      link_index: 1,
    });
  });

  it('W2: 422 invalid_memory_target with instrument_index', async () => {
    const response = await post(body({ instruments: ['ETH', 'eth'] }));
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ code: 'invalid_memory_target', instrument_index: 1 });
  });

  it('400 validation_error with field — malformed UUIDs, limits, bad JSON', async () => {
    const cases: [unknown, string][] = [
      [body({ links: [{ target_memory_id: 'nope', link_type: 'evidence' }] }), 'links[0].target_memory_id'],
      [body({ content: '' }), 'content'],
      [body({ metadata: [1] }), 'metadata'],
      [body({ scope: 'GLOBAL' }), 'scope'],
      ['{not json', 'body'],
    ];
    for (const [payload, field] of cases) {
      const response = await post(payload);
      expect(response.status, field).toBe(400);
      expect(await response.json()).toMatchObject({ code: 'validation_error', field });
    }
  });

  it('401 without or with an unknown token, 403 for a non-run token; nothing is written', async () => {
    const before = await h.db.prisma.memory.count();
    expect((await post(body(), null)).status).toBe(401);
    expect((await post(body(), 'run_unknown')).status).toBe(401);
    const forbidden = await post(body(), fx.operatorToken);
    expect(forbidden.status).toBe(403);
    expect(await forbidden.json()).toMatchObject({ code: 'forbidden' });
    expect(await h.db.prisma.memory.count()).toBe(before);
  });

  it('W8: idempotency_key retries return the original record', async () => {
    const key = `rest-${randomUUID()}`;
    const first = await (await post(body({ idempotency_key: key }))).json();
    const again = await post(body({ idempotency_key: key }));
    expect(again.status).toBe(201);
    expect((await again.json()).memory.id).toBe(first.memory.id);
    const conflict = await post(body({ idempotency_key: key, content: 'changed' }));
    expect(conflict.status).toBe(409);
    expect(await conflict.json()).toMatchObject({ code: 'idempotency_conflict' });
  });
});

describe('REST body size (S3)', () => {
  it('S3: a body over 2 MiB is refused with 413 without being buffered whole', async () => {
    const run = await startRun(h, fx.producers.adhoc!.id);
    const response = await h.fetch('/api/v1/memories', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${run.token}` },
      body: JSON.stringify({ type: 'note', scope: 'AGENT', content: 'x'.repeat(3 * 1024 * 1024) }),
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ code: 'validation_error', field: 'body' });
  });
});

// GET /metrics: Prometheus text with requests per operation, write outcomes by code, open
// connections and subscriptions, deliveries, and the database pool.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAgentFixture,
  startHarness,
  startRun,
  writeMemory,
  writeOk,
  type AgentFixture,
  type Harness,
} from '../support/harness.js';
import { subscribeWs, wsClient } from '../support/live.js';
import { waitUntil } from '../support/write-ledger.js';

let h: Harness;
let base: string;
let fx: AgentFixture;
let run: { runId: string; token: string };

beforeAll(async () => {
  h = await startHarness();
  const address = await h.server.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${address.port}`;
  fx = await createAgentFixture(h, { instruments: ['ETH'] });
  run = await startRun(h, fx.producers.adhoc!.id);
});
afterAll(async () => {
  await h.close();
});

async function scrape(): Promise<Map<string, number>> {
  const response = await h.fetch('/metrics');
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/plain');
  const samples = new Map<string, number>();
  for (const line of (await response.text()).split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const split = line.lastIndexOf(' ');
    samples.set(line.slice(0, split), Number(line.slice(split + 1)));
  }
  return samples;
}

describe('metrics', () => {
  it('counts GraphQL operations by type and root field, and write outcomes by transport and code', async () => {
    await h.ok('{ memoryTypes { type } }', {}, fx.operatorToken);
    await writeOk(h, run.token, { type: 'note', scope: 'AGENT', content: 'x' });
    await writeMemory(h, run.token, {
      type: 'note',
      scope: 'AGENT',
      content: 'x',
      links: [{ targetMemoryId: '00000000-0000-4000-8000-000000000000', linkType: 'evidence' }],
    });
    await h.fetch('/api/v1/memories', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${run.token}` },
      body: JSON.stringify({ type: 'note', scope: 'AGENT', content: 'y' }),
    });
    const samples = await scrape();
    expect(
      samples.get('memory_graphql_operations_total{type="query",field="memoryTypes",outcome="ok"}'),
    ).toBe(1);
    expect(samples.get('memory_writes_total{transport="graphql",code="created"}')).toBe(1);
    expect(samples.get('memory_writes_total{transport="graphql",code="invalid_memory_link"}')).toBe(1);
    expect(samples.get('memory_writes_total{transport="rest",code="created"}')).toBe(1);
    expect(
      samples.get('memory_graphql_operation_duration_seconds_count{type="mutation",field="createMemory"}'),
    ).toBe(2);
    if (h.db.kind === 'postgres') {
      // The writes and memoryTypes' page above used both pools: Prisma's and the named statements'.
      expect(samples.get('memory_db_pool_connections{pool="queries"}')).toBeGreaterThan(0);
      expect(samples.get('memory_db_pool_connections{pool="named"}')).toBeGreaterThan(0);
    }
  });

  it('B8: publication lateness by run kind and schedule, and records stale on arrival, without agent or producer labels', async () => {
    // 5m, boundary 10:00: one record 70 s late, one at 10:12 (after its 10:10 expiry, X2/X4).
    h.clock.set('2026-03-02T10:00:30Z');
    const scheduled = await startRun(h, fx.producers.analysis!.id, '2026-03-02T10:00:00Z');
    h.clock.set('2026-03-02T10:01:10Z');
    await writeOk(h, scheduled.token, { type: 'signal', scope: 'AGENT', content: 'on time' });
    h.clock.set('2026-03-02T10:12:00Z');
    await writeOk(h, scheduled.token, { type: 'signal', scope: 'AGENT', content: 'late' });
    h.clock.real();
    const samples = await scrape();
    const series = 'memory_publication_lateness_seconds';
    expect(samples.get(`${series}_count{run_kind="ANALYSIS",schedule="5m"}`)).toBe(2);
    expect(samples.get(`${series}_sum{run_kind="ANALYSIS",schedule="5m"}`)).toBe(70 + 720);
    expect(samples.get(`${series}_bucket{le="120",run_kind="ANALYSIS",schedule="5m"}`)).toBe(1);
    expect(samples.get('memory_records_stale_on_arrival_total{run_kind="ANALYSIS"}')).toBe(1);
    const text = [...samples.keys()].filter(
      (k) => k.startsWith(series) || k.startsWith('memory_records_stale'),
    );
    for (const key of text) {
      expect(key).not.toContain(fx.agentId);
      expect(key).not.toContain(fx.producers.analysis!.id);
    }
  });

  it('shows open connections and subscriptions and counts deliveries', async () => {
    const client = wsClient(base, fx.operatorToken);
    const sub = subscribeWs(client, { filter: { types: ['metered'] } });
    // The subscription is open once the server has registered it (a loaded machine may take a while).
    await waitUntil(
      'the subscription to open',
      async () => (await scrape()).get('memory_subscriptions_open') === 1,
    );
    let samples = await scrape();
    expect(samples.get('memory_connections_open{transport="ws"}')).toBe(1);
    expect(samples.get('memory_connections_open{transport="sse"}')).toBe(0);
    expect(samples.get('memory_subscriptions_open')).toBe(1);
    await writeOk(h, run.token, { type: 'metered', scope: 'AGENT', content: 'live' });
    await sub.waitFor(1);
    samples = await scrape();
    expect(samples.get('memory_deliveries_total{source="live"}')).toBe(1);
    await sub.stop();
    await client.dispose();
    await waitUntil(
      'the subscription to close',
      async () => (await scrape()).get('memory_subscriptions_open') === 0,
    );
    samples = await scrape();
    expect(samples.get('memory_subscriptions_open')).toBe(0);
  });
});

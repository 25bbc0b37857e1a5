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

const IMPORT = `mutation($input: [ImportMemoryInput!]!) {
  importMemories(input: $input) { id type instruments metadata createdAt expiresAt expiryPolicy provenance { runId kind } links { linkType targetMemoryId } }
}`;

beforeAll(async () => {
  h = await startHarness();
  fx = await createAgentFixture(h, { instruments: ['BTC', 'ETH', 'SOL'] });
});
afterAll(async () => {
  await h.close();
});

const item = (extra: Record<string, unknown> = {}) => ({
  agentId: fx.agentId,
  type: 'ema_handoff',
  scope: 'INSTRUMENTS',
  instruments: ['ETH'],
  content: 'legacy',
  createdAt: '2026-01-01T06:00:00Z',
  ...extra,
});

describe('importMemories (I1–I4)', () => {
  it('I1: records are stored verbatim — createdAt, metadata key order, nothing stamped', async () => {
    const metadata = {
      z: 1,
      a: { y: [3, 2, 1], b: null },
      stale_after: '2026-01-01T07:00:00Z',
      expiry_policy: 'analysis_schedule_v1',
    };
    const { importMemories } = await h.ok<{ importMemories: Record<string, any>[] }>(IMPORT, {
      input: [item({ metadata })],
    });
    const [record] = importMemories;
    expect(JSON.stringify(record!.metadata)).toBe(JSON.stringify(metadata));
    expect(record!.createdAt).toBe('2026-01-01T06:00:00.000Z');
    expect(record!.expiresAt).toBe('2026-01-01T07:00:00.000Z'); // X7
    expect(record!.expiryPolicy).toBe('analysis_schedule_v1');
    expect(record!.provenance).toBeNull();
  });

  it('I1, W10: an instant before year 100 reads back as stored, on both drivers (PGlite’s own parser made 0099 1999)', async () => {
    const createdAt = '0099-12-31T23:59:59.999Z';
    const { importMemories } = await h.ok<{ importMemories: { id: string; createdAt: string }[] }>(IMPORT, {
      input: [item({ createdAt })],
    });
    expect(importMemories[0]!.createdAt).toBe(createdAt);
    const read = await h.ok<{ memory: { createdAt: string } }>(
      'query($id: UUID!) { memory(id: $id) { createdAt } }',
      {
        id: importMemories[0]!.id,
      },
    );
    expect(read.memory.createdAt).toBe(createdAt);
  });

  it('X9/X10: provenance-bearing legacy records expire by timeframe; records without provenance never', async () => {
    const run = await startRun(h, fx.producers.analysis!.id, '2026-01-01T06:00:00Z');
    const { importMemories } = await h.ok<{ importMemories: Record<string, any>[] }>(IMPORT, {
      input: [item({ sourceRunId: run.runId, timeframe: '1h' }), item({ timeframe: '1h' })],
    });
    expect(importMemories[0]).toMatchObject({
      expiresAt: '2026-01-01T08:00:00.000Z',
      provenance: { runId: run.runId, kind: 'ANALYSIS' },
    });
    expect(importMemories[1]!.expiresAt).toBeNull();
  });

  it('I2: history may target deselected/inactive instruments and use reserved types; targets must exist', async () => {
    await h.ok('mutation { upsertInstrument(input: { id: "LUNA", active: false }) { id } }');
    const ok = await h.ok<{ importMemories: { type: string; instruments: string[] }[] }>(IMPORT, {
      input: [item({ type: 'trading_decision', instruments: ['LUNA'] })],
    });
    expect(ok.importMemories[0]).toMatchObject({ type: 'trading_decision', instruments: ['LUNA'] });
    const unknown = await h.gql(IMPORT, { input: [item({ instruments: ['NOPE'] })] });
    expect(unknown.errors?.[0]?.extensions).toMatchObject({
      code: 'invalid_memory_target',
      index: 0,
      instrumentIndex: 0,
    });
  });

  it('I2: sourceRunId must be a run of the same agent', async () => {
    const other = await createAgentFixture(h, { instruments: ['BTC'] });
    const foreignRun = await startRun(h, other.producers.adhoc!.id);
    const result = await h.gql(IMPORT, { input: [item({ sourceRunId: foreignRun.runId })] });
    expect(result.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      index: 0,
      field: 'sourceRunId',
    });
  });

  it('I3: links may point at earlier records of the agent and at earlier items of the batch', async () => {
    const run = await startRun(h, fx.producers.adhoc!.id);
    const stored = await writeOk(h, run.token, { type: 'x', scope: 'AGENT', content: 'stored' });
    const first = await h.ok<{ importMemories: { id: string }[] }>(IMPORT, {
      input: [item({ content: 'a' })],
    });
    const batch = await h.ok<{ importMemories: { id: string; links: unknown[] }[] }>(IMPORT, {
      input: [
        item({
          links: [
            { targetMemoryId: stored.id, linkType: 'evidence' },
            { targetMemoryId: first.importMemories[0]!.id, linkType: 'corrects' },
          ],
        }),
      ],
    });
    expect(batch.importMemories[0]!.links).toHaveLength(2);
  });

  it('I4: one invalid item stores nothing of the batch and the error names its index', async () => {
    const before = await h.db.prisma.memory.count();
    const result = await h.gql(IMPORT, { input: [item(), item(), item({ content: '' })] });
    expect(result.errors?.[0]?.extensions).toMatchObject({
      code: 'validation_error',
      index: 2,
      field: 'content',
    });
    expect(result.errors?.[0]?.message).toMatch(/^input\[2\]/);
    expect(await h.db.prisma.memory.count()).toBe(before);
  });

  it('only the admin token may import', async () => {
    const result = await h.gql(IMPORT, { input: [item()] }, fx.operatorToken);
    expect(result.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });
});

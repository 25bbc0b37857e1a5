// The trading context (C1–C10) and the decision audit (T1–T3), through the GraphQL API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_TOKEN,
  createAgentFixture,
  startHarness,
  startRun,
  writeMemory,
  writeOk,
  type AgentFixture,
  type Harness,
} from '../support/harness.js';
import { printedSchema } from '../../src/schema/print.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

const PROVENANCE = 'provenance { runId producerId producerName kind schedule evidenceBoundary runStatus }';
const RESEARCH = 'research { content metadata timeframe instruments links { linkType targetMemoryId } }';
const MEMORY = `id agentId type scope instruments content metadata timeframe createdAt expiresAt expiryPolicy
  ${PROVENANCE} links { linkType targetMemoryId }`;
const CONTEXT_FIELDS = `agentId instrument at
  entries { memoryId type scope status createdAt expiresAt expiryPolicy ${PROVENANCE} ${RESEARCH} }
  corrections { memoryId type scope status correctionTargetIds createdAt expiresAt ${PROVENANCE} ${RESEARCH} }
  learnings { ${MEMORY} }`;
const CONTEXT = `query($agentId: UUID, $instrument: String!, $at: DateTime) {
  tradingContext(agentId: $agentId, instrument: $instrument, at: $at) { ${CONTEXT_FIELDS} }
}`;
const AUDIT = `query($id: UUID!) {
  decisionAudit(decisionId: $id) { decision { ${MEMORY} } linked { ${MEMORY} } contexts { ${CONTEXT_FIELDS} } }
}`;

type Json = Record<string, any>;

/** An instant on the test day. */
const T = (hhmm: string, day = '2026-03-02'): string => `${day}T${hhmm}:00.000Z`;
const MINUTE = 60_000;
const plus = (iso: string, minutes: number): string =>
  new Date(Date.parse(iso) + minutes * MINUTE).toISOString();

const SCHEDULE_MINUTES: Record<string, number> = { '5m': 5, '15m': 15, '1h': 60, '4h': 240, '1d': 1440 };

/** A fresh agent whose producers exist (and are enabled) from the start of the test day. */
async function agent(
  producers: Record<string, ['ANALYSIS' | 'TRADING' | 'REVIEW', string | null]> = {
    analysis: ['ANALYSIS', '5m'],
    adhoc: ['ANALYSIS', null],
    trading: ['TRADING', null],
    review: ['REVIEW', null],
  },
): Promise<AgentFixture> {
  h.clock.set('2026-03-02T00:00:00Z');
  return createAgentFixture(h, { instruments: ['BTC', 'ETH', 'SOL'], producers });
}

/** Starts a run of `producer` at `at` (scheduled producers analyse the candle that closed last). */
async function run(fx: AgentFixture, producer: string, at: string) {
  const p = fx.producers[producer]!;
  h.clock.set(at);
  let boundary: string | null = null;
  if (p.schedule) {
    const ms = SCHEDULE_MINUTES[p.schedule]! * MINUTE;
    boundary = new Date(Math.floor(Date.parse(at) / ms) * ms).toISOString();
  }
  return startRun(h, p.id, boundary);
}

/** Writes one record as `producer` at `at` (one run per publication); ETH-targeted by default. */
async function publish(fx: AgentFixture, producer: string, at: string, input: Json = {}): Promise<Json> {
  const { token } = await run(fx, producer, at);
  h.clock.set(at);
  return writeOk(h, token, {
    type: 'market_structure',
    scope: 'INSTRUMENTS',
    instruments: ['ETH'],
    content: `${producer} at ${at}`,
    ...input,
  });
}

async function setEnabled(producerId: string, enabled: boolean, at: string): Promise<void> {
  h.clock.set(at);
  await h.ok('mutation($p: UUID!, $e: Boolean!) { setProducerEnabled(producerId: $p, enabled: $e) { id } }', {
    p: producerId,
    e: enabled,
  });
}

async function context(fx: AgentFixture, vars: Json, token: string = fx.operatorToken): Promise<Json> {
  const data = await h.ok<{ tradingContext: Json }>(CONTEXT, { instrument: 'ETH', ...vars }, token);
  return data.tradingContext;
}

const ids = (list: Json[]): string[] => list.map((e) => e.memoryId ?? e.id);
const byId = (list: Json[]): Map<string, Json> => new Map(list.map((e) => [e.memoryId, e]));

describe('candidates (C1)', () => {
  it('C1: only the agent’s Analysis records that are agent-wide or target the instrument, created by `at`, are entries', async () => {
    const fx = await agent();
    const other = await agent();
    const eth = await publish(fx, 'analysis', T('10:00'), { type: 'funding' });
    const wide = await publish(fx, 'adhoc', T('10:01'), {
      type: 'regime',
      scope: 'AGENT',
      instruments: null,
    });
    const multi = await publish(fx, 'adhoc', T('10:02'), { type: 'levels', instruments: ['BTC', 'ETH'] });
    await publish(fx, 'analysis', T('10:03'), { type: 'orderflow', instruments: ['BTC'] });
    await publish(fx, 'trading', T('10:04'), { type: 'trading_decision' });
    await publish(fx, 'review', T('10:05'), { type: 'review' });
    await publish(other, 'analysis', T('10:06'), { type: 'sentiment' });
    const { runId } = await run(fx, 'adhoc', T('10:07'));
    const legacy = (
      await h.ok<{ importMemories: Json[] }>(
        'mutation($i: [ImportMemoryInput!]!) { importMemories(input: $i) { id } }',
        {
          i: [
            {
              agentId: fx.agentId,
              type: 'legacy_note',
              scope: 'INSTRUMENTS',
              instruments: ['ETH'],
              content: 'no run',
              createdAt: T('09:00'),
            },
            {
              agentId: fx.agentId,
              type: 'legacy_view',
              scope: 'AGENT',
              content: 'analysis run',
              createdAt: T('09:01'),
              sourceRunId: runId,
            },
          ],
        },
      )
    ).importMemories[1]!;
    await publish(fx, 'adhoc', T('10:20'), { type: 'late' });

    const ctx = await context(fx, { at: T('10:10') });
    expect(ids(ctx.entries).sort()).toEqual([eth.id, wide.id, multi.id, legacy.id].sort());
    const btc = await context(fx, { instrument: 'BTC', at: T('10:10') });
    expect(ids(btc.entries)).toContain(multi.id);
    expect(ids(btc.entries)).not.toContain(eth.id);
  });
});

describe('latest per group (C2)', () => {
  it('C2: only the latest record of each (producer, type, scope) is kept', async () => {
    const fx = await agent();
    await publish(fx, 'adhoc', T('10:00'), { type: 'funding' });
    const latest = await publish(fx, 'adhoc', T('10:05'), { type: 'funding' });
    const otherType = await publish(fx, 'adhoc', T('10:01'), { type: 'orderflow' });
    const agentWide = await publish(fx, 'adhoc', T('10:02'), {
      type: 'funding',
      scope: 'AGENT',
      instruments: null,
    });
    const otherProducer = await publish(fx, 'analysis', T('10:03'), { type: 'funding' });
    const ctx = await context(fx, { at: T('10:06') });
    expect(ids(ctx.entries).sort()).toEqual([latest.id, otherType.id, agentWide.id, otherProducer.id].sort());
  });

  it('C2: equal createdAt ⇒ the greater id is kept', async () => {
    const fx = await agent();
    const { token } = await run(fx, 'adhoc', T('10:00'));
    const written: string[] = [];
    for (let i = 0; i < 4; i++) {
      written.push(
        (
          await writeOk(h, token, {
            type: 'funding',
            scope: 'INSTRUMENTS',
            instruments: ['ETH'],
            content: `v${i}`,
          })
        ).id,
      );
    }
    const ctx = await context(fx, { at: T('10:01') });
    expect(ids(ctx.entries)).toEqual([[...written].sort().at(-1)]);
  });
});

describe('status (C3) and projection (C4)', () => {
  it('C3: FRESH before the expiry, STALE from the expiry instant on, DISABLED while the producer is disabled (even when fresh)', async () => {
    const fx = await agent();
    const record = await publish(fx, 'analysis', T('10:01')); // 5m boundary 10:00 ⇒ expires 10:10 (X2)
    expect(record.expiresAt).toBe(T('10:10'));
    expect((await context(fx, { at: T('10:09') })).entries[0].status).toBe('FRESH');
    expect((await context(fx, { at: T('10:10') })).entries[0].status).toBe('STALE');
    await setEnabled(fx.producers.analysis!.id, false, T('10:12'));
    expect((await context(fx, { at: T('10:09') })).entries[0].status).toBe('FRESH'); // C9: enablement at `at`
    expect((await context(fx, { at: T('10:12') })).entries[0].status).toBe('DISABLED'); // DISABLED beats STALE
  });

  it('C3: enablement changes recorded at the same instant resolve to the producer’s current state', async () => {
    const fx = await agent();
    const off = await publish(fx, 'analysis', T('10:01'));
    await setEnabled(fx.producers.analysis!.id, false, '2026-03-02T00:00:00Z'); // the instant it was created
    const on = await publish(fx, 'adhoc', T('10:00'));
    await setEnabled(fx.producers.adhoc!.id, false, T('10:02'));
    await setEnabled(fx.producers.adhoc!.id, true, T('10:02'));
    const entries = byId((await context(fx, { at: T('10:03') })).entries);
    expect(entries.get(off.id)?.status).toBe('DISABLED');
    expect(entries.get(on.id)?.status).toBe('FRESH');
  });

  it('C3/C9: a disabled then re-enabled producer is evaluated at both times', async () => {
    const fx = await agent();
    const producer = fx.producers.adhoc!.id;
    const record = await publish(fx, 'adhoc', T('10:00')); // unscheduled ⇒ expires 10:30 (X3)
    await setEnabled(producer, false, T('10:05'));
    await setEnabled(producer, true, T('10:15'));
    const disabled = await context(fx, { at: T('10:10') });
    expect(disabled.entries).toMatchObject([{ memoryId: record.id, status: 'DISABLED', research: null }]);
    const enabled = await context(fx, { at: T('10:20') });
    expect(enabled.entries).toMatchObject([{ memoryId: record.id, status: 'FRESH' }]);
    expect(enabled.entries[0].research.content).toBe(record.content);
    expect((await context(fx, { at: T('10:31') })).entries[0].status).toBe('STALE');
    // Without `at`, the server's clock decides.
    h.clock.set(T('10:16'));
    expect((await context(fx, {})).entries[0].status).toBe('FRESH');
  });

  it('C4: FRESH entries carry the complete research; STALE and DISABLED ones only identity, provenance, expiry and status', async () => {
    const fx = await agent({
      fast: ['ANALYSIS', '5m'],
      slow: ['ANALYSIS', '1h'],
      off: ['ANALYSIS', null],
    });
    const evidence = await publish(fx, 'slow', T('09:30'), { type: 'levels' });
    const fresh = await publish(fx, 'slow', T('10:02'), {
      type: 'trend',
      instruments: ['SOL', 'ETH'],
      metadata: { bias: 'long', stale_after: '2030-01-01T00:00:00Z' },
      timeframe: '4h',
      links: [{ targetMemoryId: evidence.id, linkType: 'evidence' }],
    });
    const stale = await publish(fx, 'fast', T('09:00'), { type: 'orderflow', metadata: { note: 'secret' } });
    const disabled = await publish(fx, 'off', T('10:03'), { type: 'sentiment' });
    await setEnabled(fx.producers.off!.id, false, T('10:04'));
    const { runId } = await run(fx, 'fast', T('10:05')); // a run that publishes nothing adds nothing (C5)

    const ctx = await context(fx, { at: T('10:30') });
    const entries = byId(ctx.entries);
    expect(entries.get(fresh.id)).toEqual({
      memoryId: fresh.id,
      type: 'trend',
      scope: 'INSTRUMENTS',
      status: 'FRESH',
      createdAt: T('10:02'),
      expiresAt: T('12:00'), // 1h boundary 10:00 + 2h (X2), whatever the caller wrote
      expiryPolicy: 'analysis_schedule_v2',
      provenance: fresh.provenance,
      research: {
        content: fresh.content,
        metadata: {
          bias: 'long',
          stale_after: '2026-03-02T12:00:00.000Z',
          expiry_policy: 'analysis_schedule_v2',
        },
        timeframe: '4h',
        instruments: ['SOL', 'ETH'],
        links: [{ linkType: 'evidence', targetMemoryId: evidence.id }],
      },
    });
    expect(entries.get(stale.id)).toEqual({
      memoryId: stale.id,
      type: 'orderflow',
      scope: 'INSTRUMENTS',
      status: 'STALE',
      createdAt: T('09:00'),
      expiresAt: T('09:10'),
      expiryPolicy: 'analysis_schedule_v2',
      provenance: stale.provenance,
      research: null,
    });
    expect(entries.get(disabled.id)).toMatchObject({
      status: 'DISABLED',
      research: null,
      expiresAt: T('10:33'),
    });
    expect(entries.get(disabled.id)!.provenance).toEqual(disabled.provenance);
    expect(JSON.stringify(ctx.entries)).not.toContain('secret');
    expect(JSON.stringify(ctx.entries)).not.toContain(runId);
  });

  it('C4: FRESH entries first, then the rest; newest first inside each part', async () => {
    const fx = await agent({
      a: ['ANALYSIS', null],
      b: ['ANALYSIS', null],
      c: ['ANALYSIS', '5m'],
      d: ['ANALYSIS', '5m'],
    });
    const freshOld = await publish(fx, 'a', T('10:00'));
    const freshNew = await publish(fx, 'b', T('10:10'));
    const staleOld = await publish(fx, 'c', T('10:01'));
    const staleNew = await publish(fx, 'd', T('10:12'));
    const ctx = await context(fx, { at: T('10:25') }); // c expired 10:10, d 10:20
    expect(ctx.entries.map((e: Json) => [e.memoryId, e.status])).toEqual([
      [freshNew.id, 'FRESH'],
      [freshOld.id, 'FRESH'],
      [staleNew.id, 'STALE'],
      [staleOld.id, 'STALE'],
    ]);
  });
});

describe('the context always answers (C5)', () => {
  it('C5: an unknown instrument, an agent without research, and failed or running runs are never errors', async () => {
    const fx = await agent();
    const empty = await context(fx, { instrument: 'NOPE' });
    expect(empty).toMatchObject({
      agentId: fx.agentId,
      instrument: 'NOPE',
      entries: [],
      corrections: [],
      learnings: [],
    });
    expect(await context(fx, {})).toMatchObject({ entries: [], corrections: [], learnings: [] });

    const { token, runId } = await run(fx, 'adhoc', T('10:00'));
    const written = await writeOk(h, token, {
      type: 'funding',
      scope: 'INSTRUMENTS',
      instruments: ['ETH'],
      content: 'partial',
    });
    await h.ok('mutation($r: UUID!) { finishRun(runId: $r, status: FAILED) { id } }', { r: runId });
    await run(fx, 'analysis', T('10:01')); // still RUNNING, nothing stored
    const ctx = await context(fx, { at: T('10:02') });
    expect(ctx.entries).toMatchObject([
      { memoryId: written.id, status: 'FRESH', provenance: { runStatus: 'FAILED' } },
    ]);
  });
});

describe('corrections (C6–C8)', () => {
  it('C6: a correction is listed apart from the entries, with its sorted correctionTargetIds', async () => {
    const fx = await agent({ a: ['ANALYSIS', null], b: ['ANALYSIS', null] });
    const one = await publish(fx, 'a', T('10:00'), { type: 'funding' });
    const two = await publish(fx, 'b', T('10:01'), { type: 'funding' });
    const [first, second] = [one.id, two.id].sort() as [string, string];
    const fix = await publish(fx, 'a', T('10:02'), {
      type: 'correction',
      links: [
        { targetMemoryId: second, linkType: 'corrects' },
        { targetMemoryId: first, linkType: 'corrects' },
        { targetMemoryId: one.id, linkType: 'evidence' },
      ],
    });
    const ctx = await context(fx, { at: T('10:05') });
    expect(ids(ctx.entries).sort()).toEqual([one.id, two.id].sort());
    expect(ctx.corrections).toEqual([
      {
        memoryId: fix.id,
        type: 'correction',
        scope: 'INSTRUMENTS',
        status: 'FRESH',
        correctionTargetIds: [first, second],
        createdAt: T('10:02'),
        expiresAt: T('10:31'), // own 10:32, capped by the latest expiry of its current originals (10:31)
        provenance: fix.provenance,
        research: {
          content: fix.content,
          metadata: fix.metadata,
          timeframe: null,
          instruments: ['ETH'],
          links: fix.links,
        },
      },
    ]);
  });

  it('C6: a correction whose type name changes between versions stays one group; only the latest is listed', async () => {
    const fx = await agent();
    const original = await publish(fx, 'adhoc', T('10:00'));
    const corrects = [{ targetMemoryId: original.id, linkType: 'corrects' }];
    await publish(fx, 'adhoc', T('10:01'), { type: 'correction', links: corrects });
    const renamed = await publish(fx, 'adhoc', T('10:02'), { type: 'erratum_v2', links: corrects });
    const agentWide = await publish(fx, 'adhoc', T('10:03'), {
      type: 'erratum_v2',
      scope: 'AGENT',
      instruments: null,
      links: corrects,
    });
    const ctx = await context(fx, { at: T('10:04') });
    expect(ids(ctx.corrections)).toEqual([agentWide.id, renamed.id]); // another scope is another group
    expect(ctx.corrections[1]).toMatchObject({
      type: 'erratum_v2',
      status: 'FRESH',
      correctionTargetIds: [original.id],
    });
  });

  it('C11: a correction of a replaced original leaves the context; an as-of context still shows it', async () => {
    const fx = await agent();
    const original = await publish(fx, 'adhoc', T('10:00'));
    const fix = await publish(fx, 'adhoc', T('10:01'), {
      type: 'correction',
      links: [{ targetMemoryId: original.id, linkType: 'corrects' }],
    });
    const replacement = await publish(fx, 'adhoc', T('10:05'));
    const before = await context(fx, { at: T('10:04') });
    expect(before.corrections).toMatchObject([{ memoryId: fix.id, status: 'FRESH' }]);
    expect(before.corrections[0].research.content).toBe(fix.content);
    const after = await context(fx, { at: T('10:06') });
    expect(ids(after.entries)).toEqual([replacement.id]);
    expect(after.corrections).toEqual([]);
  });

  it('C11: a correction with one original still kept stays listed (SUPERSEDED when that one is not FRESH, C7)', async () => {
    const fx = await agent();
    const replaced = await publish(fx, 'adhoc', T('10:00'));
    const stale = await publish(fx, 'analysis', T('10:01')); // expires 10:10
    const fix = await publish(fx, 'adhoc', T('10:02'), {
      type: 'correction',
      links: [
        { targetMemoryId: replaced.id, linkType: 'corrects' },
        { targetMemoryId: stale.id, linkType: 'corrects' },
      ],
    });
    await publish(fx, 'adhoc', T('10:05')); // replaces the first original
    const answer = await context(fx, { at: T('10:11') });
    expect(answer.corrections).toMatchObject([
      {
        memoryId: fix.id,
        status: 'SUPERSEDED',
        correctionTargetIds: [replaced.id, stale.id].sort(),
        research: null,
      },
    ]);
    expect(answer.corrections.length).toBeLessThanOrEqual(answer.entries.length);
  });

  it('C7: a correction is SUPERSEDED once its only original is stale or its producer disabled', async () => {
    const fx = await agent();
    const original = await publish(fx, 'analysis', T('10:01')); // expires 10:10
    await publish(fx, 'adhoc', T('10:02'), {
      type: 'correction',
      links: [{ targetMemoryId: original.id, linkType: 'corrects' }],
    });
    expect((await context(fx, { at: T('10:09') })).corrections[0].status).toBe('FRESH');
    expect((await context(fx, { at: T('10:10') })).corrections[0]).toMatchObject({
      status: 'SUPERSEDED',
      research: null,
    });
    const second = await agent();
    const kept = await publish(second, 'adhoc', T('10:00'));
    await publish(second, 'analysis', T('10:01'), {
      type: 'correction',
      links: [{ targetMemoryId: kept.id, linkType: 'corrects' }],
    });
    await setEnabled(second.producers.adhoc!.id, false, T('10:03'));
    expect((await context(second, { at: T('10:04') })).corrections[0].status).toBe('SUPERSEDED');
  });

  it('C7: a correction whose own expiry passed while its original is current is STALE without research; expiresAt is the earlier of both', async () => {
    const fx = await agent({ hourly: ['ANALYSIS', '1h'], adhoc: ['ANALYSIS', null] });
    const original = await publish(fx, 'hourly', T('10:05')); // expires 12:00
    const fix = await publish(fx, 'adhoc', T('10:10'), {
      type: 'correction',
      links: [{ targetMemoryId: original.id, linkType: 'corrects' }],
    }); // expires 10:40
    const fresh = await context(fx, { at: T('10:39') });
    expect(fresh.corrections).toMatchObject([{ memoryId: fix.id, status: 'FRESH', expiresAt: T('10:40') }]);
    const stale = await context(fx, { at: T('10:40') });
    expect(stale.entries).toMatchObject([{ memoryId: original.id, status: 'FRESH' }]);
    expect(stale.corrections).toMatchObject([
      { memoryId: fix.id, status: 'STALE', expiresAt: T('10:40'), research: null },
    ]);

    const capped = await agent({ fast: ['ANALYSIS', '5m'], slow: ['ANALYSIS', '1h'] });
    const short = await publish(capped, 'fast', T('10:01')); // expires 10:10
    const longFix = await publish(capped, 'slow', T('10:02'), {
      type: 'correction',
      links: [{ targetMemoryId: short.id, linkType: 'corrects' }],
    }); // own expiry 12:00
    expect((await context(capped, { at: T('10:05') })).corrections).toMatchObject([
      { memoryId: longFix.id, status: 'FRESH', expiresAt: T('10:10') },
    ]);
  });

  it('C8: two producers that disagree both stay visible; a correction changes nothing about its original', async () => {
    const fx = await agent({ bull: ['ANALYSIS', null], bear: ['ANALYSIS', null] });
    const bull = await publish(fx, 'bull', T('10:00'), {
      type: 'bias',
      content: 'ETH long',
      metadata: { bias: 'long' },
    });
    const bear = await publish(fx, 'bear', T('10:01'), {
      type: 'bias',
      content: 'ETH short',
      metadata: { bias: 'short' },
    });
    await publish(fx, 'bear', T('10:02'), {
      type: 'correction',
      content: 'the long case ignores funding',
      links: [{ targetMemoryId: bull.id, linkType: 'corrects' }],
    });
    const ctx = await context(fx, { at: T('10:03') });
    const entries = byId(ctx.entries);
    expect(entries.get(bull.id)).toMatchObject({
      status: 'FRESH',
      research: { content: 'ETH long', metadata: bull.metadata },
    });
    expect(entries.get(bear.id)).toMatchObject({ status: 'FRESH', research: { content: 'ETH short' } });
    expect(ctx.corrections).toHaveLength(1);
    const { memory } = await h.ok<{ memory: Json }>(
      'query($id: UUID!) { memory(id: $id) { content metadata } }',
      {
        id: bull.id,
      },
    );
    expect(memory).toEqual({ content: 'ETH long', metadata: bull.metadata });
  });

  it('C8: a legacy prose-only correction (no corrects link) is an ordinary entry', async () => {
    const fx = await agent();
    const original = await publish(fx, 'adhoc', T('10:00'));
    const prose = await publish(fx, 'adhoc', T('10:01'), {
      type: 'correction',
      content: `Correction of ${original.id}: funding was misread`,
      links: [{ targetMemoryId: original.id, linkType: 'evidence' }],
    });
    const ctx = await context(fx, { at: T('10:02') });
    expect(ids(ctx.entries).sort()).toEqual([original.id, prose.id].sort());
    expect(ctx.corrections).toEqual([]);
  });
});

describe('as of an instant (C9)', () => {
  it('C9: an as-of query between two publications shows the first one as it was then', async () => {
    const fx = await agent();
    const first = await publish(fx, 'analysis', T('10:01'), { content: 'first' }); // expires 10:10
    const second = await publish(fx, 'analysis', T('10:21'), { content: 'second' }); // expires 10:30
    const between = await context(fx, { at: T('10:05') });
    expect(between.at).toBe(T('10:05'));
    expect(between.entries).toMatchObject([
      { memoryId: first.id, status: 'FRESH', research: { content: 'first' } },
    ]);
    const gap = await context(fx, { at: T('10:15') });
    expect(gap.entries).toMatchObject([{ memoryId: first.id, status: 'STALE', research: null }]);
    const later = await context(fx, { at: T('10:21') });
    expect(later.entries).toMatchObject([
      { memoryId: second.id, status: 'FRESH', research: { content: 'second' } },
    ]);
    expect((await context(fx, { at: T('10:00') })).entries).toEqual([]);
    // Corrections written after `at` are invisible too, whatever their scope.
    const corrects = [{ targetMemoryId: second.id, linkType: 'corrects' }];
    const fix = await publish(fx, 'adhoc', T('10:25'), { type: 'correction', links: corrects });
    const wideFix = await publish(fx, 'adhoc', T('10:26'), {
      type: 'correction',
      scope: 'AGENT',
      instruments: null,
      links: corrects,
    });
    expect((await context(fx, { at: T('10:24') })).corrections).toEqual([]);
    expect(ids((await context(fx, { at: T('10:25') })).corrections)).toEqual([fix.id]);
    expect(ids((await context(fx, { at: T('10:26') })).corrections)).toEqual([wideFix.id, fix.id]);
  });

  it('C9: without `at` the context is evaluated at the server clock', async () => {
    const fx = await agent();
    const record = await publish(fx, 'analysis', T('10:01'));
    h.clock.set(T('10:10'));
    const ctx = await context(fx, {});
    expect(ctx.at).toBe(T('10:10'));
    expect(ctx.entries).toMatchObject([{ memoryId: record.id, status: 'STALE' }]);
  });
});

describe('learnings (C10, T2)', () => {
  it('C10: learnings are agent-wide or for the instrument, as of `at`, newest first, at most 20, complete', async () => {
    const fx = await agent();
    const written: Json[] = [];
    for (let i = 0; i < 12; i++) {
      written.push(
        await publish(fx, 'review', plus(T('08:00'), i), {
          type: 'agent_learnings',
          scope: i % 2 ? 'AGENT' : 'INSTRUMENTS',
          instruments: i % 2 ? null : ['ETH', 'BTC'],
          content: `lesson ${i}`,
        }),
      );
      await publish(fx, 'review', plus(T('08:30'), i), {
        type: 'agent_learnings',
        instruments: ['BTC'],
        content: `btc ${i}`,
      });
      written.push(
        await publish(fx, 'review', plus(T('09:00'), i), {
          type: 'agent_learnings',
          scope: 'AGENT',
          instruments: null,
        }),
      );
    }
    await publish(fx, 'review', T('09:30'), { type: 'review' });
    const [legacy] = (
      await h.ok<{ importMemories: Json[] }>(
        'mutation($i: [ImportMemoryInput!]!) { importMemories(input: $i) { id } }',
        {
          i: [
            {
              agentId: fx.agentId,
              type: 'agent_learnings',
              scope: 'AGENT',
              content: 'imported',
              createdAt: T('09:40'),
            },
          ],
        },
      )
    ).importMemories;
    await publish(fx, 'review', T('11:00'), { type: 'agent_learnings', scope: 'AGENT', instruments: null });

    const ctx = await context(fx, { at: T('10:00') });
    const newestFirst = [...written].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    expect(ctx.learnings.map((l: Json) => l.id)).toEqual(
      [legacy!.id, ...newestFirst.map((w) => w.id)].slice(0, 20),
    );
    const newest = newestFirst[0]!;
    expect(ctx.learnings[1]).toEqual({
      id: newest.id,
      agentId: fx.agentId,
      type: 'agent_learnings',
      scope: 'AGENT',
      instruments: [],
      content: newest.content,
      metadata: {},
      timeframe: null,
      createdAt: newest.createdAt,
      expiresAt: null, // T2: learnings are durable
      expiryPolicy: null,
      provenance: newest.provenance,
      links: [],
    });
    expect(ctx.learnings[0].provenance).toBeNull();
    const older = await context(fx, { at: T('08:05') });
    expect(older.learnings.map((l: Json) => l.content)).toEqual([
      'lesson 5',
      'lesson 4',
      'lesson 3',
      'lesson 2',
      'lesson 1',
      'lesson 0',
    ]);
  });

  it('T2: a Review run’s learnings stay in the context long after they were written', async () => {
    const fx = await agent();
    const lesson = await publish(fx, 'review', T('10:00'), {
      type: 'agent_learnings',
      scope: 'AGENT',
      instruments: null,
    });
    const ctx = await context(fx, { at: '2027-03-02T10:00:00Z' });
    expect(ctx.learnings).toMatchObject([{ id: lesson.id, expiresAt: null }]);
  });
});

describe('decision audit (T1, T3)', () => {
  async function decisionFixture() {
    const fx = await agent();
    const funding = await publish(fx, 'analysis', T('10:01'), { type: 'funding' });
    const levels = await publish(fx, 'adhoc', T('10:02'), {
      type: 'levels',
      scope: 'AGENT',
      instruments: null,
    });
    const fix = await publish(fx, 'adhoc', T('10:03'), {
      type: 'correction',
      links: [{ targetMemoryId: funding.id, linkType: 'corrects' }],
    });
    const lesson = await publish(fx, 'review', T('09:00'), {
      type: 'agent_learnings',
      scope: 'AGENT',
      instruments: null,
    });
    // T1: one decision per evaluated instrument, linking every considered record (corrections too).
    const decision = await publish(fx, 'trading', T('10:04'), {
      type: 'trading_decision',
      content: 'no trade: funding correction pending',
      links: [
        ...[levels, fix, funding].map((m) => ({ targetMemoryId: m.id, linkType: 'considered' })),
        { targetMemoryId: levels.id, linkType: 'evidence' },
      ],
    });
    // Later research must not leak into the audit (C9).
    const later = await publish(fx, 'analysis', T('10:06'), { type: 'funding' });
    return { fx, funding, levels, fix, lesson, decision, later };
  }

  it('T1: a Trading run logs one decision per evaluated instrument, no-trade included, linking every considered record', async () => {
    const fx = await agent();
    const funding = await publish(fx, 'analysis', T('10:01'), {
      type: 'funding',
      instruments: ['ETH', 'BTC'],
    });
    const fix = await publish(fx, 'adhoc', T('10:02'), {
      type: 'correction',
      instruments: ['ETH', 'BTC'],
      links: [{ targetMemoryId: funding.id, linkType: 'corrects' }],
    });
    const { token } = await run(fx, 'trading', T('10:05'));
    const decisions = [];
    for (const [instrument, outcome] of [
      ['ETH', 'no_trade'],
      ['BTC', 'reduce_position'],
    ] as const) {
      const result = await writeMemory(h, token, {
        type: 'trading_decision',
        scope: 'INSTRUMENTS',
        instruments: [instrument],
        content: `${instrument}: ${outcome}`,
        metadata: { decision: outcome },
        links: [funding, fix].map((m) => ({ targetMemoryId: m.id, linkType: 'considered' })),
      });
      // The write returns the decision id an opening order must cite.
      expect(result.__typename).toBe('CreateMemorySuccess');
      decisions.push(result.memory);
    }
    expect(decisions.map((d) => d.instruments)).toEqual([['ETH'], ['BTC']]);
    for (const decision of decisions) {
      expect(decision.links).toEqual([
        { targetMemoryId: funding.id, linkType: 'considered' },
        { targetMemoryId: fix.id, linkType: 'considered' },
      ]);
      // Its own decisions stay readable to the Trading run (restricted context-only read).
      const { memory } = await h.ok<{ memory: { id: string } | null }>(
        'query($id: UUID!) { memory(id: $id) { id } }',
        { id: decision.id },
        token,
      );
      expect(memory?.id).toBe(decision.id);
    }
  });

  it('T3: the audit returns the decision, every linked record in link order, and the context as of the decision', async () => {
    const { fx, funding, levels, fix, lesson, decision, later } = await decisionFixture();
    h.clock.set(T('12:00'));
    const { decisionAudit } = await h.ok<{ decisionAudit: Json }>(
      AUDIT,
      { id: decision.id },
      fx.operatorToken,
    );
    expect(decisionAudit.decision).toMatchObject({
      id: decision.id,
      type: 'trading_decision',
      content: decision.content,
    });
    expect(decisionAudit.linked.map((m: Json) => m.id)).toEqual([levels.id, fix.id, funding.id]);
    expect(decisionAudit.linked[2]).toMatchObject({
      content: funding.content,
      provenance: funding.provenance,
    });
    expect(decisionAudit.contexts).toHaveLength(1);
    const [ctx] = decisionAudit.contexts;
    expect(ctx).toEqual(await context(fx, { at: decision.createdAt }));
    expect(ctx).toMatchObject({ agentId: fx.agentId, instrument: 'ETH', at: decision.createdAt });
    expect(ids(ctx.entries).sort()).toEqual([funding.id, levels.id].sort());
    expect(ids(ctx.entries)).not.toContain(later.id);
    expect(ctx.corrections).toMatchObject([{ memoryId: fix.id, status: 'FRESH' }]);
    expect(ctx.learnings.map((l: Json) => l.id)).toEqual([lesson.id]);
  });

  it('T3: a decision targeting several instruments has one context per instrument; an agent-wide one has none', async () => {
    const fx = await agent();
    const btc = await publish(fx, 'adhoc', T('10:00'), { instruments: ['BTC'] });
    const multi = await publish(fx, 'trading', T('10:01'), {
      type: 'trading_decision',
      instruments: ['SOL', 'BTC'],
    });
    const wide = await publish(fx, 'trading', T('10:02'), {
      type: 'trading_decision',
      scope: 'AGENT',
      instruments: null,
    });
    const audit = async (id: string) =>
      (await h.ok<{ decisionAudit: Json }>(AUDIT, { id }, fx.operatorToken)).decisionAudit;
    const several = await audit(multi.id);
    expect(several.contexts.map((c: Json) => c.instrument)).toEqual(['SOL', 'BTC']);
    expect(several.contexts[0].entries).toEqual([]);
    expect(ids(several.contexts[1].entries)).toEqual([btc.id]);
    expect(several.linked).toEqual([]);
    expect((await audit(wide.id)).contexts).toEqual([]);
  });

  it('T3: null for an unknown id, a record that is not a trading_decision, or another agent’s decision', async () => {
    const { fx, funding, decision } = await decisionFixture();
    const other = await agent();
    const audit = async (id: string, token: string) =>
      (await h.ok<{ decisionAudit: Json }>(AUDIT, { id }, token)).decisionAudit;
    expect(await audit('00000000-0000-4000-8000-000000000000', fx.operatorToken)).toBeNull();
    expect(await audit(funding.id, fx.operatorToken)).toBeNull();
    expect(await audit(decision.id, other.operatorToken)).toBeNull();
    expect(await audit(decision.id, ADMIN_TOKEN)).toMatchObject({ decision: { id: decision.id } });
  });

  it('T3: operators, Review runs of the agent and the admin may audit; Trading and Analysis run tokens are FORBIDDEN', async () => {
    const { fx, decision } = await decisionFixture();
    const review = await run(fx, 'review', T('12:00'));
    const result = await h.gql<{ decisionAudit: Json }>(AUDIT, { id: decision.id }, review.token);
    expect(result.errors).toBeUndefined();
    expect(result.data?.decisionAudit.decision.id).toBe(decision.id);
    for (const producer of ['trading', 'analysis']) {
      const { token } = await run(fx, producer, T('12:00'));
      const refused = await h.gql(AUDIT, { id: decision.id }, token);
      expect(refused.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
      expect(refused.data?.decisionAudit ?? null).toBeNull();
    }
    const anonymous = await h.gql(AUDIT, { id: decision.id }, null);
    expect(anonymous.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });
});

describe('who may read the context (§1)', () => {
  it('§1: a Trading run reads its own agent’s context; naming another agent ⇒ FORBIDDEN', async () => {
    const fx = await agent();
    const other = await agent();
    const record = await publish(fx, 'adhoc', T('10:00'));
    const { token } = await run(fx, 'trading', T('10:01'));
    const own = await context(fx, { at: T('10:02') }, token);
    expect(ids(own.entries)).toEqual([record.id]);
    expect(ids((await context(fx, { agentId: fx.agentId, at: T('10:02') }, token)).entries)).toEqual([
      record.id,
    ]);
    const foreign = await h.gql(CONTEXT, { agentId: other.agentId, instrument: 'ETH' }, token);
    expect(foreign.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(foreign.data).toBeNull();
  });

  it('§1: operators, Review and Analysis runs read their agent’s context; admin must name the agent', async () => {
    const fx = await agent();
    const record = await publish(fx, 'adhoc', T('10:00'));
    const review = await run(fx, 'review', T('10:01'));
    const analysis = await run(fx, 'analysis', T('10:01'));
    for (const token of [fx.operatorToken, review.token, analysis.token]) {
      expect(ids((await context(fx, { at: T('10:02') }, token)).entries)).toEqual([record.id]);
    }
    const admin = await context(fx, { agentId: fx.agentId, at: T('10:02') }, ADMIN_TOKEN);
    expect(ids(admin.entries)).toEqual([record.id]);
    const missing = await h.gql(CONTEXT, { instrument: 'ETH' }, ADMIN_TOKEN);
    expect(missing.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    const anonymous = await h.gql(CONTEXT, { instrument: 'ETH' }, null);
    expect(anonymous.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const otherOperator = (await agent()).operatorToken;
    const foreign = await h.gql(CONTEXT, { agentId: fx.agentId, instrument: 'ETH' }, otherOperator);
    expect(foreign.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });
});

describe('contract', () => {
  it('C1–C10/T3: schema.graphql carries the contract’s trading-context names and the decision audit', () => {
    const sdl = printedSchema();
    for (const fragment of [
      'tradingContext(agentId: UUID, at: DateTime, instrument: String!): TradingContext!',
      'decisionAudit(decisionId: UUID!): DecisionAudit',
      'enum ContextStatus {\n  DISABLED\n  FRESH\n  STALE\n}',
      'enum CorrectionStatus {\n  FRESH\n  STALE\n  SUPERSEDED\n}',
      'correctionTargetIds: [UUID!]!',
      'research: Research',
      'learnings: [Memory!]!',
      'contexts: [TradingContext!]!',
      'linked: [Memory!]!',
      'decision: Memory!',
    ]) {
      expect(sdl).toContain(fragment);
    }
  });
});

// B10: a decision's considered records judged at its createdAt — freshness then and now, and why a
// record was not in the decision instrument's context — over the scripted insight day.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import { playInsightDay, type InsightDay } from '../support/insight-day.js';

let h: Harness;
let day: InsightDay;

beforeAll(async () => {
  h = await startHarness();
  day = await playInsightDay(h);
});
afterAll(async () => {
  await h?.close();
});

const AUDIT = `query($id: UUID!) { decisionAudit(decisionId: $id) { decision { id }
  considered { memoryId memory { id type } freshnessAtDecision freshnessNow inContextAtDecision notInContextReason } } }`;

async function considered(label: string, token: string = day.fx.operatorToken) {
  const { decisionAudit } = await h.ok(AUDIT, { id: day.records[label] }, token);
  return decisionAudit.considered.map(
    (c: {
      memoryId: string;
      memory: { id: string };
      freshnessAtDecision: string;
      freshnessNow: string;
      inContextAtDecision: boolean;
      notInContextReason: string | null;
    }) => {
      expect(c.memory.id).toBe(c.memoryId);
      const label = Object.entries(day.records).find(([, id]) => id === c.memoryId)?.[0];
      return [label, c.freshnessAtDecision, c.freshnessNow, c.inContextAtDecision, c.notInContextReason];
    },
  );
}

describe('B10: considered records at the decision', () => {
  it('B10: the 06:20 decision — a record superseded by a late one, two in context', async () => {
    expect(await considered('decision-fresh')).toEqual([
      // hourly-04 (published 06:10, stale on arrival) had become the signal group's latest.
      ['hourly-05', 'FRESH', 'STALE', false, 'superseded'],
      ['slow-00', 'FRESH', 'STALE', true, null],
      ['toggled-05', 'FRESH', 'STALE', true, null],
    ]);
  });

  it('B10: the 11:30 decision — superseded, a correction’s original, other instrument, stale, in context', async () => {
    expect(await considered('decision-stale')).toEqual([
      ['hourly-09', 'STALE', 'STALE', false, 'superseded'],
      // correction-2 (FRESH until 11:40) corrected it in the context.
      ['hourly-11', 'FRESH', 'FRESH', false, 'correction_original'],
      // Its original (hourly-05) was no longer the kept record: the correction had left the context (C11).
      ['correction', 'STALE', 'STALE', false, 'superseded'],
      ['pair-08', 'FRESH', 'STALE', false, 'other_instrument'],
      ['slow-00', 'STALE', 'STALE', false, 'stale'],
      ['correction-2', 'FRESH', 'STALE', true, null],
    ]);
  });

  it('B10: a Review run of the agent audits the same answer', async () => {
    const { startRun: payload } = await h.ok<{ startRun: { token: string } }>(
      'mutation($p: UUID!) { startRun(input: { producerId: $p }) { token } }',
      { p: day.producerId('review') },
    );
    expect(await considered('decision-fresh', payload.token)).toEqual(await considered('decision-fresh'));
  });
});

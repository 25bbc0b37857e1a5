// B9: the freshness board and timeline over the scripted insight day, expected by hand, and the
// board agreeing with tradingContext itself.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import { DAY, playInsightDay, type InsightDay } from '../support/insight-day.js';

let h: Harness;
let day: InsightDay;

beforeAll(async () => {
  h = await startHarness();
  day = await playInsightDay(h);
});
afterAll(async () => {
  await h?.close();
});

const at = (hhmm: string) => `${DAY}T${hhmm}:00.000Z`;
const BOARD = `query($at: DateTime) { freshnessBoard(at: $at) { at instruments {
  instrument groups { producer { name } type state memoryId expiresAt }
  latestDecision { id type } decisionFreshEvidence decisionStaleEvidence } } }`;
const TIMELINE = `query($i: String!, $from: DateTime!, $to: DateTime!) {
  freshnessTimeline(instrument: $i, from: $from, to: $to) {
    instrument lanes { producer { name } type intervals { from to memoryId corrected } } decisions { id } } }`;

type Group = { producer: { name: string }; type: string; state: string; memoryId: string | null };
const row = (groups: Group[]) => groups.map((g) => [g.producer.name, g.type, g.state, g.memoryId]);
const none = (producer: string, type: string) => [producer, type, 'NONE', null];

describe('B9: the freshness board', () => {
  it('B9: at noon every selected instrument × (producer, type) group is FRESH, STALE, DISABLED or NONE', async () => {
    const { freshnessBoard } = await h.ok(BOARD, {}, day.fx.operatorToken);
    expect(freshnessBoard.at).toBe(at('12:00'));
    const [btc, eth] = freshnessBoard.instruments;
    expect(btc.instrument).toBe('BTC');
    // pair-08 expires at 12:00 exactly: stale at noon.
    expect(row(btc.groups)).toEqual([
      ['pair', 'flow', 'STALE', day.records['pair-08']],
      none('adhoc', 'note'),
      ['slow', 'regime', 'STALE', day.records['slow-00']],
      none('toggled', 'sentiment'),
      none('hourly', 'signal'),
    ]);
    expect(btc.latestDecision).toBeNull();
    expect([btc.decisionFreshEvidence, btc.decisionStaleEvidence]).toEqual([null, null]);
    expect(row(eth.groups)).toEqual([
      none('pair', 'flow'),
      ['adhoc', 'note', 'STALE', day.records['adhoc-note']],
      ['slow', 'regime', 'STALE', day.records['slow-00']],
      ['toggled', 'sentiment', 'DISABLED', day.records['toggled-05']],
      ['hourly', 'signal', 'FRESH', day.records['hourly-11']],
    ]);
    // The 11:30 decision considered hourly-09 (stale since 11:00), hourly-11, the correction (stale
    // since 08:00), pair-08 (fresh until 12:00), slow-00 (stale since 08:00) and correction-2 (until 11:40).
    expect(eth.latestDecision).toEqual({ id: day.records['decision-stale'], type: 'trading_decision' });
    expect([eth.decisionFreshEvidence, eth.decisionStaleEvidence]).toEqual([3, 3]);
  });

  it('B9: as of 06:22 — a late record that arrived stale is the signal group’s latest, so the group is STALE', async () => {
    const { freshnessBoard } = await h.ok(BOARD, { at: at('06:22') }, day.fx.operatorToken);
    const [btc, eth] = freshnessBoard.instruments;
    expect(row(btc.groups)).toEqual([
      ['pair', 'flow', 'FRESH', day.records['pair-06']],
      ['slow', 'regime', 'FRESH', day.records['slow-00']],
      none('toggled', 'sentiment'),
      none('hourly', 'signal'),
    ]);
    expect(row(eth.groups)).toEqual([
      none('pair', 'flow'),
      ['slow', 'regime', 'FRESH', day.records['slow-00']],
      ['toggled', 'sentiment', 'FRESH', day.records['toggled-05']],
      ['hourly', 'signal', 'STALE', day.records['hourly-04']],
    ]);
    expect(eth.latestDecision.id).toBe(day.records['decision-fresh']);
    expect([eth.decisionFreshEvidence, eth.decisionStaleEvidence]).toEqual([3, 0]);
  });

  it('B9: each group’s state is what tradingContext reports for it at the same instant', async () => {
    for (const instant of [at('06:22'), at('09:30'), at('12:00')]) {
      const { freshnessBoard } = await h.ok(BOARD, { at: instant }, day.fx.operatorToken);
      for (const board of freshnessBoard.instruments) {
        const { tradingContext } = await h.ok(
          'query($i: String!, $at: DateTime) { tradingContext(instrument: $i, at: $at) { entries { memoryId status } } }',
          { i: board.instrument, at: instant },
          day.fx.operatorToken,
        );
        const shown = board.groups.filter((g: Group) => g.state !== 'NONE');
        expect(shown.map((g: Group) => [g.memoryId, g.state])).toEqual(
          expect.arrayContaining(
            tradingContext.entries.map((e: { memoryId: string; status: string }) => [e.memoryId, e.status]),
          ),
        );
        expect(shown).toHaveLength(tradingContext.entries.length);
      }
    }
  });
});

describe('B9: the freshness timeline', () => {
  it('B9: per lane, the intervals during which its then-latest record was fresh; gaps are gaps', async () => {
    const { freshnessTimeline } = await h.ok(
      TIMELINE,
      { i: 'ETH', from: at('00:00'), to: at('12:00') },
      day.fx.operatorToken,
    );
    const r = day.records;
    const span = (from: string, to: string, label: string, corrected = false) => ({
      from: at(from),
      to: at(to),
      memoryId: r[label],
      corrected,
    });
    expect(freshnessTimeline).toEqual({
      instrument: 'ETH',
      lanes: [
        { producer: { name: 'adhoc' }, type: 'note', intervals: [span('07:00', '07:30', 'adhoc-note')] },
        { producer: { name: 'slow' }, type: 'regime', intervals: [span('00:10', '08:00', 'slow-00')] },
        // Disabled at 06:30 (C3), before its 07:00 expiry.
        {
          producer: { name: 'toggled' },
          type: 'sentiment',
          intervals: [span('05:10', '06:30', 'toggled-05')],
        },
        {
          producer: { name: 'hourly' },
          type: 'signal',
          intervals: [
            span('00:02', '01:30', 'hourly-00'),
            span('01:30', '03:00', 'hourly-01'),
            // hourly-05 was corrected at 07:30.
            span('05:05', '06:05', 'hourly-05', true),
            // At 06:10 the late hourly-04 (stale on arrival) became the latest: a gap until 07:05.
            span('06:05', '06:10', 'hourly-06'),
            span('07:05', '08:05', 'hourly-07'),
            span('08:05', '09:05', 'hourly-08'),
            span('09:05', '11:00', 'hourly-09'),
            // hourly-11 was corrected at 11:10 (correction-2).
            span('11:05', '12:00', 'hourly-11', true),
          ],
        },
      ],
      decisions: [{ id: r['decision-fresh'] }, { id: r['decision-stale'] }],
    });
  });

  it('B9: a range starting mid-day carries the record that was latest at its start', async () => {
    const { freshnessTimeline } = await h.ok(
      TIMELINE,
      { i: 'ETH', from: at('09:30'), to: at('10:00') },
      day.fx.operatorToken,
    );
    expect(
      freshnessTimeline.lanes.map((l: { type: string; intervals: unknown[] }) => [l.type, l.intervals]),
    ).toEqual([
      ['note', []],
      ['regime', []],
      ['sentiment', []],
      [
        'signal',
        [{ from: at('09:30'), to: at('10:00'), memoryId: day.records['hourly-09'], corrected: false }],
      ],
    ]);
    expect(freshnessTimeline.decisions).toEqual([]);
  });

  it('B9: a range over 7 days, or ending before it starts, is BAD_USER_INPUT naming `to`', async () => {
    for (const [from, to] of [
      ['2026-03-01T00:00:00Z', '2026-03-08T00:00:01Z'],
      [at('10:00'), at('09:00')],
    ]) {
      const result = await h.gql(TIMELINE, { i: 'ETH', from, to }, day.fx.operatorToken);
      expect(result.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'to' });
    }
  });
});

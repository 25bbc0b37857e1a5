// B9, B10: the timeline of one lane (the context's answer over time) and the verdict on a decision's
// considered record, as pure functions.
import { describe, expect, it } from 'vitest';
import { judgeEvidence } from '../../src/domain/decision-evidence.js';
import { laneIntervals, type LaneRecord } from '../../src/domain/freshness-timeline.js';

const at = (hhmm: string) => new Date(`2026-03-02T${hhmm}:00.000Z`);
const record = (id: string, created: string, expires: string | null, corrected = false): LaneRecord => ({
  id,
  producerId: 'p',
  type: 'signal',
  scope: 'INSTRUMENTS',
  createdAt: at(created),
  expiresAt: expires === null ? null : at(expires),
  corrected,
});
const span = (from: string, to: string, memoryId: string, corrected = false) => ({
  from: at(from),
  to: at(to),
  memoryId,
  corrected,
});

describe('B9: a lane’s fresh intervals', () => {
  const enabled = () => true;

  it('B9: each record is fresh from its creation until its expiry or the next record; gaps stay gaps', () => {
    const records = [
      record('a', '01:00', '02:00'),
      record('b', '03:00', '05:00', true),
      record('c', '04:00', '04:30'),
    ];
    expect(
      laneIntervals({ records, from: at('00:00'), to: at('06:00'), enabledAt: enabled, toggles: [] }),
    ).toEqual([
      span('01:00', '02:00', 'a'),
      span('03:00', '04:00', 'b', true),
      // c replaced b (C2) and expired at 04:30: b does not come back.
      span('04:00', '04:30', 'c'),
    ]);
  });

  it('B9: a late record that arrives stale hides the fresh one before it (the context keeps the latest)', () => {
    const records = [record('on-time', '06:05', '08:00'), record('late', '06:10', '06:00')];
    expect(
      laneIntervals({ records, from: at('06:00'), to: at('07:00'), enabledAt: enabled, toggles: [] }),
    ).toEqual([span('06:05', '06:10', 'on-time')]);
  });

  it('B9: a disabled producer’s lane is not fresh while disabled (C3), and the range clips the intervals', () => {
    const records = [record('a', '01:00', null)];
    const enabledAt = (_p: string, t: Date) => t < at('02:00') || t >= at('03:00');
    expect(
      laneIntervals({
        records,
        from: at('01:30'),
        to: at('04:00'),
        enabledAt,
        toggles: [at('02:00'), at('03:00')],
      }),
    ).toEqual([span('01:30', '02:00', 'a'), span('03:00', '04:00', 'a')]);
  });
});

describe('B10: a considered record at the decision', () => {
  const decision = { createdAt: at('11:30'), instruments: ['ETH'] };
  const analysis = {
    runKind: 'ANALYSIS' as const,
    scope: 'INSTRUMENTS' as const,
    instruments: ['ETH'],
    expiresAt: at('12:00'),
  };
  const context = {
    entries: [
      { memoryId: 'kept', status: 'FRESH' as const },
      { memoryId: 'old-kept', status: 'STALE' as const },
    ],
    corrections: [{ memoryId: 'fix', status: 'FRESH' as const, correctionTargetIds: ['corrected'] }],
  };
  const judge = (id: string, overrides = {}) =>
    judgeEvidence({ id, ...analysis, ...overrides }, decision, [context]);

  it('B10: in context, stale, superseded, a correction’s original, another instrument, not research', () => {
    expect(judge('kept')).toEqual({
      freshnessAtDecision: 'FRESH',
      inContextAtDecision: true,
      notInContextReason: null,
    });
    expect(judge('old-kept').notInContextReason).toBe('stale');
    expect(judge('replaced')).toEqual({
      freshnessAtDecision: 'FRESH',
      inContextAtDecision: false,
      notInContextReason: 'superseded',
    });
    expect(judge('fix').inContextAtDecision).toBe(true);
    const withOriginal = {
      ...context,
      entries: [...context.entries, { memoryId: 'corrected', status: 'FRESH' as const }],
    };
    expect(judgeEvidence({ id: 'corrected', ...analysis }, decision, [withOriginal]).notInContextReason).toBe(
      'correction_original',
    );
    expect(judge('btc', { instruments: ['BTC'] }).notInContextReason).toBe('other_instrument');
    expect(judge('note', { runKind: 'TRADING', expiresAt: at('11:00') })).toEqual({
      freshnessAtDecision: 'STALE',
      inContextAtDecision: false,
      notInContextReason: 'not_research',
    });
  });
});

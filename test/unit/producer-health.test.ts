// B8: cycles, missed cycles, lateness and status of a producer, across DST days and schedule changes.
import { describe, expect, it } from 'vitest';
import {
  countCycles,
  decideHealth,
  enabledSegments,
  isStaleOnArrival,
  latenessSeconds,
  MAX_MISSED_BOUNDARIES,
  nextBoundary,
  type CycleOutcome,
  type ScheduleSegment,
} from '../../src/domain/producer-health.js';
import { resolveTimeWindow } from '../../src/domain/time-window.js';

const at = (iso: string) => new Date(iso);
const since = (schedule: ScheduleSegment['schedule'], from: string): ScheduleSegment[] => [
  { schedule, from: at(from), to: null },
];
function localDay(date: string, timeZone: string) {
  const resolved = resolveTimeWindow({ fromDate: date, timeZone }, at('2030-01-01T00:00:00Z'));
  if (!resolved.ok) throw new Error(resolved.error.message);
  return resolved.window;
}
const fresh: CycleOutcome = { freshOnArrival: true };
const outcomes = (entries: [string, CycleOutcome][]) =>
  new Map(entries.map(([iso, o]) => [Date.parse(iso), o]));

describe('B8: cycles are the schedule’s UTC boundaries in the window', () => {
  it('B8: a completed cycle is one whose boundary + interval is at or before now', () => {
    const window = { from: at('2026-03-02T10:00:00Z'), to: at('2026-03-02T11:00:00Z') };
    const segments = since('5m', '2026-03-01T00:00:00Z');
    expect(countCycles(segments, window, at('2026-03-02T11:00:00Z'))).toBe(12);
    // 10:52: the 10:45 cycle completed at 10:50, the 10:50 one completes at 10:55.
    expect(countCycles(segments, window, at('2026-03-02T10:52:00Z'))).toBe(10);
  });

  it('B8: a local day of 23 h (New York, spring forward) holds 23 hourly cycles, one of 25 h (London, autumn) 25', () => {
    const segments = since('1h', '2026-01-01T00:00:00Z');
    const now = at('2026-12-01T00:00:00Z');
    expect(countCycles(segments, localDay('2026-03-08', 'America/New_York'), now)).toBe(23);
    expect(countCycles(segments, localDay('2026-10-25', 'Europe/London'), now)).toBe(25);
    expect(countCycles(segments, localDay('2026-10-26', 'Europe/London'), now)).toBe(24);
    // 4h boundaries stay UTC-aligned: the London day 2026-10-25 runs 2026-10-24T23:00Z..2026-10-26T00:00Z.
    expect(
      countCycles(since('4h', '2026-01-01T00:00:00Z'), localDay('2026-10-25', 'Europe/London'), now),
    ).toBe(6);
  });

  it('B8: a schedule change mid-day counts each part on its own schedule', () => {
    const segments: ScheduleSegment[] = [
      { schedule: '1h', from: at('2026-03-02T00:00:00Z'), to: at('2026-03-02T12:00:00Z') },
      { schedule: '15m', from: at('2026-03-02T12:00:00Z'), to: null },
    ];
    const day = { from: at('2026-03-02T00:00:00Z'), to: at('2026-03-03T00:00:00Z') };
    expect(countCycles(segments, day, at('2026-03-03T06:00:00Z'))).toBe(12 + 48);
    const decided = decideHealth({
      schedule: '15m',
      enabledNow: true,
      segments,
      window: day,
      now: at('2026-03-02T13:00:00Z'),
      cycles: outcomes([['2026-03-02T12:30:00Z', fresh]]),
    });
    // Completed by 13:00: 00:00..11:00 hourly (12) and 12:00, 12:15, 12:30, 12:45 (4).
    expect(decided.cyclesExpected).toBe(16);
    expect(decided.cyclesWithRecord).toBe(1);
    expect(decided.missedBoundaries.slice(0, 4).map((d) => d.toISOString())).toEqual([
      '2026-03-02T12:45:00.000Z',
      '2026-03-02T12:15:00.000Z',
      '2026-03-02T12:00:00.000Z',
      '2026-03-02T11:00:00.000Z',
    ]);
    // The last completed cycle (12:45) was missed, the one before (12:30) was not.
    expect(decided.status).toBe('LATE');
  });

  it('B8: cycles start at the producer’s creation and pause while it is disabled', () => {
    const segments = enabledSegments({
      schedule: '1h',
      createdAt: at('2026-03-02T03:30:00Z'),
      changes: [
        { enabled: true, at: at('2026-03-02T03:30:00Z') },
        { enabled: false, at: at('2026-03-02T10:10:00Z') },
        { enabled: true, at: at('2026-03-02T14:00:00Z') },
      ],
    });
    const day = { from: at('2026-03-02T00:00:00Z'), to: at('2026-03-03T00:00:00Z') };
    // 04:00..10:00 (7) and 14:00..23:00 (10).
    expect(countCycles(segments, day, at('2026-03-04T00:00:00Z'))).toBe(17);
  });
});

describe('B8: status at now', () => {
  const window = { from: at('2026-03-02T10:00:00Z'), to: at('2026-03-02T11:00:00Z') };
  const base = {
    schedule: '5m' as const,
    enabledNow: true,
    segments: since('5m', '2026-03-01T00:00:00Z'),
    window,
  };
  const now = at('2026-03-02T11:00:00Z'); // last completed cycle 10:55, the one before 10:50

  it('B8: HEALTHY when the last completed cycle has a record fresh on arrival', () => {
    const cycles = outcomes([['2026-03-02T10:55:00Z', fresh]]);
    expect(decideHealth({ ...base, now, cycles }).status).toBe('HEALTHY');
  });

  it('B8: LATE when the last completed cycle was missed, or arrived stale', () => {
    expect(decideHealth({ ...base, now, cycles: outcomes([['2026-03-02T10:50:00Z', fresh]]) }).status).toBe(
      'LATE',
    );
    const stale = outcomes([['2026-03-02T10:55:00Z', { freshOnArrival: false }]]);
    expect(decideHealth({ ...base, now, cycles: stale }).status).toBe('LATE');
  });

  it('B8: MISSING when the last two completed cycles were both missed', () => {
    const decided = decideHealth({ ...base, now, cycles: outcomes([['2026-03-02T10:45:00Z', fresh]]) });
    expect(decided.status).toBe('MISSING');
    expect(decided.cyclesExpected).toBe(12);
    expect(decided.cyclesWithRecord).toBe(1);
    expect(decided.missedBoundaries[0]!.toISOString()).toBe('2026-03-02T10:55:00.000Z');
    expect(decided.nextBoundary!.toISOString()).toBe('2026-03-02T11:05:00.000Z');
  });

  it('B8: DISABLED beats everything; UNSCHEDULED has no cycles', () => {
    const disabled = decideHealth({ ...base, enabledNow: false, now, cycles: new Map() });
    expect(disabled.status).toBe('DISABLED');
    expect(disabled.nextBoundary).toBeNull();
    const unscheduled = decideHealth({ ...base, schedule: null, now, cycles: new Map() });
    expect(unscheduled).toMatchObject({ status: 'UNSCHEDULED', cyclesExpected: 0, missedBoundaries: [] });
  });

  it('B8: a producer created after the last completed cycle is not missing anything yet', () => {
    const segments = since('5m', '2026-03-02T10:58:00Z');
    expect(decideHealth({ ...base, segments, now, cycles: new Map() }).status).toBe('HEALTHY');
  });

  it('B8: missed boundaries are newest first and at most 100', () => {
    const day = { from: at('2026-03-02T00:00:00Z'), to: at('2026-03-03T00:00:00Z') };
    const decided = decideHealth({
      ...base,
      window: day,
      now: at('2026-03-03T00:00:00Z'),
      cycles: new Map(),
    });
    expect(decided.cyclesExpected).toBe(288);
    expect(decided.missedBoundaries).toHaveLength(MAX_MISSED_BOUNDARIES);
    expect(decided.missedBoundaries[0]!.toISOString()).toBe('2026-03-02T23:55:00.000Z');
    expect(decided.missedBoundaries[99]!.toISOString()).toBe('2026-03-02T15:40:00.000Z');
  });
});

describe('B8: lateness and stale on arrival', () => {
  it('B8: lateness is createdAt − evidenceBoundary; stale on arrival is createdAt ≥ expiresAt', () => {
    expect(latenessSeconds(at('2026-03-02T12:01:10Z'), at('2026-03-02T12:00:00Z'))).toBe(70);
    // X2/X4's worked example: 15m, boundary 12:00, written 12:31 ⇒ expires 12:30, stale on arrival.
    expect(isStaleOnArrival(at('2026-03-02T12:31:00Z'), at('2026-03-02T12:30:00Z'))).toBe(true);
    expect(isStaleOnArrival(at('2026-03-02T12:30:00Z'), at('2026-03-02T12:30:00Z'))).toBe(true);
    expect(isStaleOnArrival(at('2026-03-02T12:29:59Z'), at('2026-03-02T12:30:00Z'))).toBe(false);
    expect(isStaleOnArrival(at('2026-03-02T12:29:59Z'), null)).toBe(false);
  });

  it('B8: the next boundary is strictly after now', () => {
    expect(nextBoundary('15m', at('2026-03-02T12:00:00Z')).toISOString()).toBe('2026-03-02T12:15:00.000Z');
    expect(nextBoundary('1d', at('2026-03-02T12:00:00Z')).toISOString()).toBe('2026-03-03T00:00:00.000Z');
  });
});

import { describe, expect, it } from 'vitest';
import {
  MAX_RANGE_DAYS,
  isValidTimeZone,
  localDayBounds,
  resolveTimeWindow,
  type TimeWindowArgs,
} from '../../src/domain/time-window.js';

const HOUR = 3_600_000;
const now = new Date('2026-09-30T12:34:56.789Z');

function resolved(input: TimeWindowArgs): { from: Date; to: Date; rolling: boolean } {
  const r = resolveTimeWindow(input, now);
  if (!r.ok) throw new Error(`unexpected error on ${r.error.field}: ${r.error.message}`);
  return r.window;
}

function errorField(input: TimeWindowArgs): string {
  const r = resolveTimeWindow(input, now);
  if (r.ok) throw new Error('expected an error');
  expect(r.error.message.length).toBeGreaterThan(0);
  return r.error.field;
}

const hours = (w: { from: Date; to: Date }): number => (w.to.getTime() - w.from.getTime()) / HOUR;

describe('local calendar days (B3)', () => {
  it('B3: America/New_York 2026-03-08 (spring forward) is 23 h', () => {
    const w = localDayBounds('2026-03-08', 'America/New_York');
    expect(w.from.toISOString()).toBe('2026-03-08T05:00:00.000Z');
    expect(w.to.toISOString()).toBe('2026-03-09T04:00:00.000Z');
    expect(hours(w)).toBe(23);
  });

  it('B3: Europe/London 2026-10-25 (fall back) is 25 h', () => {
    const w = localDayBounds('2026-10-25', 'Europe/London');
    expect(w.from.toISOString()).toBe('2026-10-24T23:00:00.000Z');
    expect(w.to.toISOString()).toBe('2026-10-26T00:00:00.000Z');
    expect(hours(w)).toBe(25);
  });

  it('B3: an ordinary day is 24 h', () => {
    const w = localDayBounds('2026-06-15', 'Europe/Berlin');
    expect(w.from.toISOString()).toBe('2026-06-14T22:00:00.000Z');
    expect(hours(w)).toBe(24);
  });

  it('B3: Asia/Kolkata days start at 18:30Z (half-hour offset)', () => {
    const w = localDayBounds('2026-01-10', 'Asia/Kolkata');
    expect(w.from.toISOString()).toBe('2026-01-09T18:30:00.000Z');
    expect(w.to.toISOString()).toBe('2026-01-10T18:30:00.000Z');
  });

  it('B3: a day whose local midnight does not exist starts at the first local instant (America/Santiago)', () => {
    const w = localDayBounds('2026-09-06', 'America/Santiago');
    expect(w.from.toISOString()).toBe('2026-09-06T04:00:00.000Z');
    expect(hours(w)).toBe(23);
  });

  it('B3: localDayBounds throws on a bad date or zone', () => {
    expect(() => localDayBounds('2026-02-30', 'UTC')).toThrow(RangeError);
    expect(() => localDayBounds('2026-02-01', 'Mars/Olympus')).toThrow(RangeError);
  });

  it('B3: isValidTimeZone accepts IANA zones and rejects junk', () => {
    expect(isValidTimeZone('UTC')).toBe(true);
    expect(isValidTimeZone('America/New_York')).toBe(true);
    expect(isValidTimeZone('')).toBe(false);
    expect(isValidTimeZone('Mars/Olympus')).toBe(false);
  });
});

describe('date ranges (B3)', () => {
  it('B3: a single fromDate covers that local day (toDate defaults to fromDate)', () => {
    const w = resolved({ fromDate: '2026-03-08', timeZone: 'America/New_York' });
    expect(w).toEqual({ ...localDayBounds('2026-03-08', 'America/New_York'), rolling: false });
  });

  it('B3: the time zone defaults to UTC', () => {
    const w = resolved({ fromDate: '2026-09-30', toDate: null, timeZone: null });
    expect(w.from.toISOString()).toBe('2026-09-30T00:00:00.000Z');
    expect(w.to.toISOString()).toBe('2026-10-01T00:00:00.000Z');
  });

  it('B3: an inclusive range across a DST change runs from first local midnight to the midnight after the last day', () => {
    const w = resolved({ fromDate: '2026-10-24', toDate: '2026-10-26', timeZone: 'Europe/London' });
    expect(w.from.toISOString()).toBe('2026-10-23T23:00:00.000Z');
    expect(w.to.toISOString()).toBe('2026-10-27T00:00:00.000Z');
    expect(hours(w)).toBe(73);
  });

  it(`B3: a range of exactly ${MAX_RANGE_DAYS} days is allowed`, () => {
    const w = resolved({ fromDate: '2024-01-01', toDate: '2024-12-31', timeZone: 'UTC' });
    expect(hours(w)).toBe(366 * 24);
  });

  it(`B3: a range of ${MAX_RANGE_DAYS + 1} days is an error on window`, () => {
    expect(errorField({ fromDate: '2024-01-01', toDate: '2025-01-01' })).toBe('window');
  });

  it('B3: a reversed range is an error on window.toDate', () => {
    expect(errorField({ fromDate: '2026-03-09', toDate: '2026-03-08' })).toBe('window.toDate');
  });

  it('B3: toDate without fromDate is an error on window.fromDate', () => {
    expect(errorField({ toDate: '2026-03-08' })).toBe('window.fromDate');
  });

  it('B3: an impossible or badly formatted fromDate is an error on window.fromDate', () => {
    for (const fromDate of [
      '2026-02-30',
      '2026-13-01',
      '2026-3-8',
      '2026-03-08T00:00:00Z',
      'yesterday',
      '',
    ]) {
      expect(errorField({ fromDate })).toBe('window.fromDate');
    }
  });

  it('B3: an impossible toDate is an error on window.toDate', () => {
    expect(errorField({ fromDate: '2026-02-01', toDate: '2026-02-29' })).toBe('window.toDate');
  });

  it('B3: an unknown time zone is an error on window.timeZone', () => {
    expect(errorField({ fromDate: '2026-02-01', timeZone: 'Mars/Olympus' })).toBe('window.timeZone');
    expect(errorField({ rolling: 'LAST_1H', timeZone: 'not a zone' })).toBe('window.timeZone');
  });
});

describe('rolling windows (B3)', () => {
  for (const [rolling, h] of [
    ['LAST_1H', 1],
    ['LAST_6H', 6],
    ['LAST_24H', 24],
  ] as const) {
    it(`B3: ${rolling} spans ${h} h ending at now`, () => {
      const w = resolved({ rolling, timeZone: 'Asia/Kolkata' });
      expect(w.rolling).toBe(true);
      expect(w.to).toEqual(now);
      expect(w.from.getTime()).toBe(now.getTime() - h * HOUR);
    });
  }

  it('B3: rolling together with a date is an error on window', () => {
    expect(errorField({ rolling: 'LAST_1H', fromDate: '2026-09-30' })).toBe('window');
    expect(errorField({ rolling: 'LAST_6H', toDate: '2026-09-30' })).toBe('window');
  });

  it('B3: neither rolling nor dates is an error on window', () => {
    expect(errorField({})).toBe('window');
    expect(errorField({ rolling: null, fromDate: null, toDate: null, timeZone: 'UTC' })).toBe('window');
  });

  it('B3: an unknown rolling value is an error', () => {
    expect(errorField({ rolling: 'LAST_2H' as never })).toBe('window.rolling');
  });

  it('B4: the resolved window does not alias the caller clock', () => {
    const w = resolved({ rolling: 'LAST_1H' });
    expect(w.to).not.toBe(now);
  });
});

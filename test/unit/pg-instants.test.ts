// timestamptz as pg reads it (src/store/pg-instants.ts): the fast reading of a UTC session's text
// returns exactly the Date pg's own parser (postgres-date) returns, and every other form is left to it.
import fc from 'fast-check';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { parseTimestamptz, pgTypes } from '../../src/store/pg-instants.js';

const postgresDate: (text: string) => Date = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text');

/** How a UTC session prints a timestamptz: `YYYY-MM-DD HH:MM:SS[.fraction]+00`, trailing zeros cut. */
function utcText(at: Date, micros: number): string {
  const iso = at.toISOString(); // YYYY-MM-DDTHH:MM:SS.mmmZ
  const fraction = `${iso.slice(20, 23)}${String(micros).padStart(3, '0')}`.replace(/0+$/, '');
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${fraction ? `.${fraction}` : ''}+00`;
}

const instants = fc.date({
  min: new Date('0100-01-01T00:00:00.000Z'),
  max: new Date('9999-12-31T23:59:59.999Z'),
  noInvalidDate: true,
});

describe('timestamptz as pg reads it', () => {
  it('B4 (cursors hold createdAt to the millisecond): a UTC session’s text (0–6 fraction digits, years 0100–9999) reads as pg’s own parser reads it', () => {
    fc.assert(
      fc.property(instants, fc.integer({ min: 0, max: 999 }), (at, micros) => {
        const text = utcText(at, micros);
        expect(parseTimestamptz(text).getTime()).toBe(postgresDate(text).getTime());
      }),
      { numRuns: 2000 },
    );
    expect(parseTimestamptz('2026-12-04 18:32:00.57+00').toISOString()).toBe('2026-12-04T18:32:00.570Z');
    expect(parseTimestamptz('2026-12-04 18:32:00+00').toISOString()).toBe('2026-12-04T18:32:00.000Z');
  });

  it('B4: every other form goes to pg’s own parser (another time zone, BC, infinity, years before 100)', () => {
    for (const text of [
      '2026-12-04 18:32:00.57+05:30',
      '2026-12-04 20:32:00-02',
      '0044-03-15 12:00:00+00 BC',
      '0099-06-01 00:00:00+00',
      '10000-01-01 00:00:00+00',
      'infinity',
      '-infinity',
    ]) {
      const ours = parseTimestamptz(text);
      const theirs = postgresDate(text);
      expect(ours instanceof Date ? ours.getTime() : ours).toEqual(
        theirs instanceof Date ? theirs.getTime() : theirs,
      );
    }
  });

  it('B4: a pool reads timestamptz with it and every other type with pg’s parsers', () => {
    expect(pgTypes.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text')).toBe(parseTimestamptz);
    for (const oid of [pg.types.builtins.TIMESTAMP, pg.types.builtins.INT8, pg.types.builtins.JSON])
      expect(pgTypes.getTypeParser(oid, 'text')).toBe(pg.types.getTypeParser(oid, 'text'));
  });
});

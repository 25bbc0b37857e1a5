// Issue 12 item 8: the export's CSV text — RFC 4180 quoting and the formula-injection guard, proven
// by examples and by a real parser (PostgreSQL's COPY … CSV) reading any storable text back (W10).
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { isStorableText } from '../../src/domain/text-hygiene.js';
import { csvField, csvRecord } from '../../src/http/csv.js';
import { closeCsvParser, CSV_HEADER, parseCsv, type CsvRow } from '../support/export.js';

afterAll(async () => {
  await closeCsvParser();
});

describe('issue 12 item 8: CSV fields', () => {
  it('issue 12 item 8: RFC 4180 — a field with a comma, quote, CR or LF is quoted, its quotes doubled; others stay bare', () => {
    expect(csvField('plain text')).toBe('plain text');
    expect(csvField('')).toBe('');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('"')).toBe('""""');
    expect(csvField('line\nbreak')).toBe('"line\nbreak"');
    expect(csvField('crlf\r\nbreak')).toBe('"crlf\r\nbreak"');
    expect(csvField('日本語 🚀 e\u0301')).toBe('日本語 🚀 e\u0301');
    expect(csvRecord(['a', 'b,c', ''])).toBe('a,"b,c",\r\n');
  });

  it('issue 12 item 8: formula injection — = + - @ tab CR at the start get a leading quote (then RFC 4180 quoting)', () => {
    expect(csvField('=1+2')).toBe("'=1+2");
    expect(csvField('+1')).toBe("'+1");
    expect(csvField('-2')).toBe("'-2");
    expect(csvField('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvField('\tx')).toBe("'\tx");
    expect(csvField('\rx')).toBe(`"'\rx"`);
    expect(csvField('=HYPERLINK("u","v")')).toBe(`"'=HYPERLINK(""u"",""v"")"`);
    // Only the first character counts.
    expect(csvField('a=b')).toBe('a=b');
    expect(csvField(' =1')).toBe(' =1');
  });

  it('issue 12 item 8: any storable text survives a real parser (PostgreSQL COPY CSV) as the guarded value', async () => {
    const storable = fc.string({ unit: 'binary', maxLength: 40 }).filter((text) => isStorableText(text));
    const awkward = fc.constantFrom(
      '"',
      ',',
      '\r',
      '\n',
      '\r\n',
      '=',
      '-',
      '@',
      '\t',
      ' ',
      '""',
      '\\.',
      '🚀',
    );
    const cell = fc.oneof(
      storable,
      fc.array(awkward, { maxLength: 6 }).map((parts) => parts.join('')),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(cell, { minLength: CSV_HEADER.length, maxLength: CSV_HEADER.length }), {
          minLength: 1,
          maxLength: 4,
        }),
        async (rows) => {
          const text = csvRecord(CSV_HEADER) + rows.map((row) => csvRecord(row)).join('');
          const parsed = await parseCsv(text);
          const guarded = (value: string) => (/^[=+\-@\t\r]/.test(value) ? `'${value}` : value);
          expect(parsed).toEqual(
            rows.map(
              (row) =>
                Object.fromEntries(CSV_HEADER.map((column, i) => [column, guarded(row[i]!)])) as CsvRow,
            ),
          );
        },
      ),
      { numRuns: 150 },
    );
  });
});

// B12 and S13: the export's CSV text — RFC 4180 quoting and the formula guard, proven
// by examples and by a real parser (PostgreSQL's COPY … CSV) reading any storable text back (W10).
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { isStorableText } from '../../src/domain/text-hygiene.js';
import { csvField, csvRecord } from '../../src/http/csv.js';
import { closeCsvParser, CSV_HEADER, parseCsv, type CsvRow } from '../support/export.js';

afterAll(async () => {
  await closeCsvParser();
});

describe('B12: CSV fields', () => {
  it('B12: RFC 4180 — a field with a comma, quote, CR or LF is quoted, its quotes doubled; others stay bare', () => {
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

  it('S13: = + - @ tab or CR at the start: the cell is quoted, with a leading quote', () => {
    expect(csvField('=1+2')).toBe(`"'=1+2"`);
    expect(csvField('+1')).toBe(`"'+1"`);
    expect(csvField('-2')).toBe(`"'-2"`);
    expect(csvField('@SUM(A1)')).toBe(`"'@SUM(A1)"`);
    expect(csvField('\tx')).toBe(`"'\tx"`);
    expect(csvField('\rx')).toBe(`"'\rx"`);
    expect(csvField('=HYPERLINK("u","v")')).toBe(`"'=HYPERLINK(""u"",""v"")"`);
    // Anywhere else, and after a space, these characters are text.
    expect(csvField('a=b')).toBe('a=b');
    expect(csvField(' =1')).toBe(' =1');
  });

  it('S13: a formula start after a comma, semicolon or tab inside a cell is neutralised too (quoted, leading quote)', () => {
    expect(csvField('ok;=1+1')).toBe(`"'ok;=1+1"`);
    expect(csvField('a,=cmd|x')).toBe(`"'a,=cmd|x"`);
    expect(csvField('a\t@SUM(A1)')).toBe(`"'a\t@SUM(A1)"`);
    expect(csvField('1;-2')).toBe(`"'1;-2"`);
    expect(csvField('x,+1')).toBe(`"'x,+1"`);
    expect(csvField('x;\tlater')).toBe(`"'x;\tlater"`);
    expect(csvField('x,\rlater')).toBe(`"'x,\rlater"`);
    // A start is quoted as well: a `;` or tab inside it cannot split off a formula cell in any locale.
    expect(csvField('=1+2')).toBe(`"'=1+2"`);
    expect(csvField('-2;=3')).toBe(`"'-2;=3"`);
    // Not after a separator: left alone.
    expect(csvField('a=b;c')).toBe('a=b;c');
    expect(csvField('a; =1')).toBe('a; =1');
    expect(csvField('BTC;ETH')).toBe('BTC;ETH');
  });

  it('S13: no text yields a cell that starts a formula, whether a spreadsheet splits on , ; or tab', () => {
    const formulaStart = /^[=+\-@\t\r]/;
    const piece = fc.constantFrom('=', '+', '-', '@', '\t', '\r', ',', ';', 'a', ' ', '"', "'");
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 8 }).map((parts) => parts.join('')),
        (text) => {
          const field = csvField(text);
          // A quoted field stays one cell in every locale; a bare one is split on its separators.
          const cells = field.startsWith('"')
            ? [field.slice(1, -1).replace(/""/g, '"')]
            : field.split(/[,;\t]/);
          for (const cell of cells) expect(cell, JSON.stringify(text)).not.toMatch(formulaStart);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('B12: any storable text survives a real parser (PostgreSQL COPY CSV) as the guarded value', async () => {
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
          const guarded = (value: string) =>
            /^[=+\-@\t\r]|[,;\t][=+\-@\t\r]/.test(value) ? `'${value}` : value;
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

// W10 text hygiene as pure rules: which text is storable, and how messages quote input.
import { describe, expect, it } from 'vitest';
import {
  boundQuotedInput,
  findUnstorableText,
  isStorableText,
  QUOTE_MAX_CHARS,
  quoteInput,
} from '../../src/domain/text-hygiene.js';
import { isStorableInstant } from '../../src/domain/instant-range.js';

describe('W10: storable text', () => {
  it('W10: U+0000 and unpaired surrogates are unstorable; paired surrogates and odd Unicode are fine', () => {
    for (const bad of ['\u0000', 'a\u0000b', '\ud800', 'x\udfff', '\udc00\ud800', '😀\ud83d']) {
      expect(isStorableText(bad), JSON.stringify(bad)).toBe(false);
    }
    for (const good of ['', 'ETH', '😀', 'e\u0301', '\ufeff', '\u202e', '\uffff', '\ud83d\ude00x']) {
      expect(isStorableText(good), JSON.stringify(good)).toBe(true);
    }
  });

  it('W10: findUnstorableText names the first bad field; a list names the list and its element', () => {
    expect(
      findUnstorableText([
        ['content', 'ok'],
        ['type', null],
        ['instruments', ['ETH']],
      ]),
    ).toBeNull();
    expect(
      findUnstorableText([
        ['content', 'ok'],
        ['instruments', ['ETH', 'B\u0000']],
      ]),
    ).toEqual({
      field: 'instruments',
      message: expect.stringMatching(/^instruments\[1\] contains U\+0000/),
    });
    expect(
      findUnstorableText([
        ['type', 'a\ud800'],
        ['content', '\u0000'],
      ])?.field,
    ).toBe('type');
  });
});

describe('W10: quoting input in messages', () => {
  it('W10: quoteInput shows at most 100 characters, marks a cut, never splits a surrogate pair', () => {
    expect(quoteInput('ETH')).toBe('"ETH"');
    expect(quoteInput(42)).toBe('42');
    expect(quoteInput(undefined)).toBe('undefined');
    const long = quoteInput('x'.repeat(10_000));
    expect(long).toBe(`"${'x'.repeat(QUOTE_MAX_CHARS)}"…`);
    const emoji = quoteInput(`${'x'.repeat(QUOTE_MAX_CHARS - 1)}😀😀`);
    expect(emoji).toBe(`"${'x'.repeat(QUOTE_MAX_CHARS - 1)}"…`);
    expect(quoteInput({ a: 'y'.repeat(500) }).length).toBeLessThanOrEqual(QUOTE_MAX_CHARS + 1);
  });

  it('W10: boundQuotedInput cuts every long quoted run and leaves short messages alone', () => {
    const message = `Variable "$input" got invalid value "${'z'.repeat(5000)}" at "input.scope"; Value "${'z'.repeat(5000)}" does not exist`;
    const bounded = boundQuotedInput(message);
    expect(bounded.length).toBeLessThan(400);
    expect(bounded).toContain('"$input"');
    expect(bounded).toContain('"input.scope"');
    expect(boundQuotedInput('short "message"')).toBe('short "message"');
    // An escaped backslash at the cut never turns into an escape of the closing quote.
    const slashes = boundQuotedInput(`x "${'a'.repeat(99)}\\\\${'b'.repeat(200)}" y`);
    expect(slashes).toBe(`x "${'a'.repeat(99)}"… y`);
  });
});

describe('W10: storable instants', () => {
  it('W10: years 0001–9999 UTC are storable; year 0 and year 10000 are not', () => {
    expect(isStorableInstant(new Date('0001-01-01T00:00:00Z'))).toBe(true);
    expect(isStorableInstant(new Date('9999-12-31T23:59:59.999Z'))).toBe(true);
    expect(isStorableInstant(new Date('0000-12-31T23:59:59.999Z'))).toBe(false);
    expect(isStorableInstant(new Date('+010000-01-01T00:00:00Z'))).toBe(false);
    expect(isStorableInstant(new Date(Number.NaN))).toBe(false);
    expect(isStorableInstant('2026-01-01T00:00:00Z')).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from '../../src/domain/cursor.js';

const id = '3f2b8c1e-5d4a-4b7e-9c2d-0a1b2c3d4e5f';
const createdAt = new Date('2026-09-30T12:34:56.789Z');
const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64url');

describe('keyset cursors (B4, L2)', () => {
  it('B4: a cursor round-trips createdAt and id', () => {
    const cursor = encodeCursor({ createdAt, id });
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor)).toEqual({ createdAt, id });
  });

  it('L2: a cursor round-trips the seq (the record\'s place in commit order), as "iso|id|seq"', () => {
    const cursor = encodeCursor({ createdAt, id, seq: 9_007_199_254_740_991 });
    expect(cursor).toBe(b64(`2026-09-30T12:34:56.789Z|${id}|9007199254740991`));
    expect(decodeCursor(cursor)).toEqual({ createdAt, id, seq: 9_007_199_254_740_991 });
    expect(decodeCursor(b64(`2026-09-30T12:34:56.789Z|${id}|1`))?.seq).toBe(1);
  });

  it('L2: millisecond precision survives the round trip', () => {
    const at = new Date('2026-09-30T00:00:00.001Z');
    expect(decodeCursor(encodeCursor({ createdAt: at, id }))?.createdAt.getTime()).toBe(at.getTime());
  });

  it('B4: the cursor is opaque base64url of "iso|id"', () => {
    expect(encodeCursor({ createdAt, id })).toBe(b64(`2026-09-30T12:34:56.789Z|${id}`));
  });

  it('B4: an upper-case UUID is accepted and normalised to lower case', () => {
    expect(decodeCursor(b64(`2026-09-30T12:34:56.789Z|${id.toUpperCase()}`))?.id).toBe(id);
  });

  for (const [label, cursor] of [
    ['empty string', ''],
    ['not base64url', 'abc$%^'],
    ['standard base64 padding', `${b64(`2026-09-30T12:34:56.789Z|${id}`)}=`],
    ['non-canonical trailing bits', `${b64(`2026-09-30T12:34:56.789Z|${id}`).slice(0, -1)}B`],
    ['no separator', b64(`2026-09-30T12:34:56.789Z${id}`)],
    ['extra separator', b64(`2026-09-30T12:34:56.789Z|${id}|x`)],
    ['seq zero', b64(`2026-09-30T12:34:56.789Z|${id}|0`)],
    ['seq with a leading zero', b64(`2026-09-30T12:34:56.789Z|${id}|01`)],
    ['negative seq', b64(`2026-09-30T12:34:56.789Z|${id}|-1`)],
    ['seq beyond 2^53', b64(`2026-09-30T12:34:56.789Z|${id}|9007199254740993`)],
    ['empty seq', b64(`2026-09-30T12:34:56.789Z|${id}|`)],
    ['four parts', b64(`2026-09-30T12:34:56.789Z|${id}|1|2`)],
    ['bad date', b64(`not-a-date|${id}`)],
    ['rolled-over date', b64(`2026-02-30T12:34:56.789Z|${id}`)],
    ['date without milliseconds', b64(`2026-09-30T12:34:56Z|${id}`)],
    ['id not a UUID', b64('2026-09-30T12:34:56.789Z|42')],
    ['UUID with junk', b64(`2026-09-30T12:34:56.789Z|${id}x`)],
    ['random text', 'aGVsbG8'],
    ['year 0000 (W10: no timestamp PostgreSQL can compare with)', b64(`0000-01-01T00:00:00.000Z|${id}`)],
  ] as const) {
    it(`B4: malformed cursor (${label}) decodes to null`, () => {
      expect(decodeCursor(cursor)).toBeNull();
    });
  }
});

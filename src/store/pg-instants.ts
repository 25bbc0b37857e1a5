// timestamptz values as pg reads them, without two regular expressions and eight parseInts each: a
// browse page reads ≈ 150 of them (postgres-date's parse was 2.6 % of its service's CPU). The text a
// UTC session sends — `2026-12-04 18:32:00.57+00`, 0–6 fraction digits — is read by position; any
// other form (another session time zone, BC, infinity, a year before 100) goes to pg's own parser.
import pg from 'pg';

const TIMESTAMPTZ = pg.types.builtins.TIMESTAMPTZ;
const PLUS = 43;
const ZERO = 48;

/** Two ASCII digits at `at`. */
const twoDigits = (text: string, at: number) =>
  (text.charCodeAt(at) - ZERO) * 10 + (text.charCodeAt(at + 1) - ZERO);

/** A timestamptz's text as a Date: exactly what pg's default parser (postgres-date) returns. */
export function parseTimestamptz(text: string): Date {
  const n = text.length;
  const utc =
    n >= 22 &&
    n <= 29 &&
    n !== 23 &&
    text.charCodeAt(n - 3) === PLUS &&
    text.charCodeAt(n - 2) === ZERO &&
    text.charCodeAt(n - 1) === ZERO &&
    text[4] === '-' &&
    text[10] === ' ' &&
    text[13] === ':' &&
    (n === 22 || text[19] === '.');
  const year = utc ? twoDigits(text, 0) * 100 + twoDigits(text, 2) : 0;
  if (year < 100) return fallback(text);
  // Milliseconds: the first three fraction digits (postgres-date truncates the microseconds too).
  let ms = 0;
  for (let at = 20; at < 23; at++) ms = ms * 10 + (at < n - 3 ? text.charCodeAt(at) - ZERO : 0);
  return new Date(
    Date.UTC(
      year,
      twoDigits(text, 5) - 1,
      twoDigits(text, 8),
      twoDigits(text, 11),
      twoDigits(text, 14),
      twoDigits(text, 17),
      ms,
    ),
  );
}

const fallback: (text: string) => Date = pg.types.getTypeParser(TIMESTAMPTZ, 'text');

/** pg's type parsers with timestamptz read by parseTimestamptz (a Pool's `types`: no global change). */
export const pgTypes: pg.CustomTypesConfig = {
  getTypeParser: (oid, format) =>
    oid === TIMESTAMPTZ && format !== 'binary' ? parseTimestamptz : pg.types.getTypeParser(oid, format),
};

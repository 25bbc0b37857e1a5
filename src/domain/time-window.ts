// Resolves the operator browser's time filter into absolute bounds (B3); local days follow the browser's IANA zone.
import { DateTime, IANAZone } from 'luxon';
import { quoteInput } from './text-hygiene.js';
import type { FieldError } from './types.js';

export type RollingWindow = 'LAST_1H' | 'LAST_6H' | 'LAST_24H';

export interface TimeWindowArgs {
  rolling?: RollingWindow | null;
  fromDate?: string | null;
  toDate?: string | null;
  timeZone?: string | null;
}

/** Records match when from <= createdAt < to; for rolling windows `to` is the resolution instant and live updates accept anything newer. */
export interface ResolvedWindow {
  from: Date;
  to: Date;
  rolling: boolean;
}

export const MAX_RANGE_DAYS = 366;

const ROLLING_HOURS: Record<RollingWindow, number> = { LAST_1H: 1, LAST_6H: 6, LAST_24H: 24 };
const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;
const HOUR_MS = 3_600_000;
/** The last instant an ISO-8601 DateTime can show (a window's end past it could not be answered). */
const LAST_INSTANT_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** Zone names already checked (luxon builds an Intl.DateTimeFormat per check: 1.5 % of a page's CPU). */
const checkedZones = new Map<string, boolean>();
const MAX_CHECKED_ZONES = 1_000;

export function isValidTimeZone(zone: string): boolean {
  const known = checkedZones.get(zone);
  if (known !== undefined) return known;
  const valid = zone.length > 0 && IANAZone.isValidZone(zone);
  // Bounded: a stranger's made-up names must not grow it (the first ones stay; later ones are checked each time).
  if (checkedZones.size < MAX_CHECKED_ZONES) checkedZones.set(zone, valid);
  return valid;
}

// B3: a strictly formatted, real calendar date (2026-02-30 is rejected, not rolled over).
function parseLocalDate(date: string, timeZone: string): DateTime | null {
  if (!DATE_PATTERN.test(date)) return null;
  const parsed = DateTime.fromISO(date, { zone: timeZone });
  return parsed.isValid ? parsed.startOf('day') : null;
}

/** Local midnight to next local midnight (23 h or 25 h on DST change days, B3). Throws RangeError on a bad date or zone. */
export function localDayBounds(date: string, timeZone: string): { from: Date; to: Date } {
  if (!isValidTimeZone(timeZone)) throw new RangeError(`Unknown IANA time zone: ${quoteInput(timeZone)}`);
  const start = parseLocalDate(date, timeZone);
  if (start === null) throw new RangeError(`Not a calendar date (YYYY-MM-DD): ${quoteInput(date)}`);
  return { from: start.toJSDate(), to: start.plus({ days: 1 }).startOf('day').toJSDate() };
}

function fail(field: string, message: string): { ok: false; error: FieldError } {
  return { ok: false, error: { field, message } };
}

export function resolveTimeWindow(
  input: TimeWindowArgs,
  now: Date,
): { ok: true; window: ResolvedWindow } | { ok: false; error: FieldError } {
  const { rolling, fromDate, toDate } = input;
  const hasDates = (fromDate ?? null) !== null || (toDate ?? null) !== null;
  const hasRolling = (rolling ?? null) !== null;
  if (hasRolling && hasDates) {
    return fail('window', 'A time window is either rolling or a date range, not both.');
  }
  if (!hasRolling && !hasDates) {
    return fail('window', 'A time window needs either rolling or fromDate (with optional toDate).');
  }
  // B3: the zone is validated even for rolling windows so a broken client is told early.
  const timeZone = input.timeZone ?? 'UTC';
  if (!isValidTimeZone(timeZone)) {
    return fail(
      'window.timeZone',
      `timeZone must be an IANA time zone such as Europe/London; got ${quoteInput(timeZone)}.`,
    );
  }
  if (rolling !== null && rolling !== undefined) {
    // Own-property lookup: an enum value outside the schema must not reach Object.prototype.
    const hours = Object.prototype.hasOwnProperty.call(ROLLING_HOURS, rolling)
      ? ROLLING_HOURS[rolling]
      : undefined;
    if (hours === undefined) return fail('window.rolling', 'rolling must be LAST_1H, LAST_6H or LAST_24H.');
    return {
      ok: true,
      window: { from: new Date(now.getTime() - hours * HOUR_MS), to: new Date(now), rolling: true },
    };
  }
  if (fromDate === null || fromDate === undefined) {
    return fail('window.fromDate', 'fromDate is required when toDate is given.');
  }
  const start = parseLocalDate(fromDate, timeZone);
  if (start === null) {
    return fail('window.fromDate', 'fromDate must be a calendar date in the form YYYY-MM-DD.');
  }
  const lastDay = parseLocalDate(toDate ?? fromDate, timeZone);
  if (lastDay === null) {
    return fail('window.toDate', 'toDate must be a calendar date in the form YYYY-MM-DD.');
  }
  // Calendar-day arithmetic on the date labels themselves, independent of DST day lengths.
  const labelDay = (d: string): DateTime => DateTime.fromISO(d, { zone: 'UTC' });
  const days = Math.round(labelDay(toDate ?? fromDate).diff(labelDay(fromDate), 'days').days);
  if (days < 0) return fail('window.toDate', 'toDate must not be before fromDate.');
  if (days + 1 > MAX_RANGE_DAYS) {
    return fail('window', `A date range may cover at most ${MAX_RANGE_DAYS} days (inclusive).`);
  }
  const to = lastDay.plus({ days: 1 }).startOf('day').toJSDate();
  if (to.getTime() > LAST_INSTANT_MS) {
    return fail(toDate ? 'window.toDate' : 'window.fromDate', 'A date range must end by 9999-12-31.');
  }
  return { ok: true, window: { from: start.toJSDate(), to, rolling: false } };
}

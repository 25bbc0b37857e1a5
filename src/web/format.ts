// Times and numbers in the operator's locale and zone (B6: created time in the operator's zone). One style
// everywhere on the page: an instant reads "Nov 30, 2026, 03:20:59 AM EST", a local date "Nov 30, 2026".

const instantFormat = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  timeZoneName: 'short',
});

// A calendar date is formatted at its UTC noon in UTC, so no zone can move it to another day.
const dateFormat = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  timeZone: 'UTC',
});

const relativeFormat = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
const countFormat = new Intl.NumberFormat();

export function formatInstant(iso: string): string {
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? iso : instantFormat.format(at);
}

/** A local calendar date (`YYYY-MM-DD`) in the page's style, e.g. "Nov 30, 2026". */
export function formatLocalDate(date: string): string {
  const at = new Date(`${date}T12:00:00Z`);
  return Number.isNaN(at.getTime()) ? date : dateFormat.format(at);
}

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
];

/** "5 minutes ago", "in 2 hours"; under a minute ⇒ "now". */
export function formatRelative(iso: string, now: number): string {
  const delta = Date.parse(iso) - now;
  if (Number.isNaN(delta)) return '';
  for (const [unit, ms] of UNITS) {
    if (Math.abs(delta) >= ms) return relativeFormat.format(Math.trunc(delta / ms), unit);
  }
  return relativeFormat.format(0, 'second');
}

export function formatCount(count: number): string {
  return countFormat.format(count);
}

/** Length of a resolved window in hours, e.g. "23 h" for a spring-forward day (B3). */
export function formatHours(fromIso: string, toIso: string): string {
  const hours = (Date.parse(toIso) - Date.parse(fromIso)) / 3_600_000;
  return `${Number.isInteger(hours) ? hours : hours.toFixed(1)} h`;
}

export function shortId(id: string): string {
  return id.slice(0, 8);
}

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

export function isIsoInstant(value: unknown): value is string {
  return typeof value === 'string' && ISO_INSTANT.test(value);
}

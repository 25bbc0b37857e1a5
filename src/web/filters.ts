// The operator's filter (types, time, search, instruments, producers, run kinds, freshness) and how it
// becomes the API's MemoryFilter / TimeWindowInput (B2, B3).
import { formatLocalDate } from './format.js';
import type { Freshness, MemoryFilter, RollingWindow, RunKind, TimeWindowInput } from './queries.js';

export type TimeFilter =
  | { kind: 'all' }
  | { kind: 'rolling'; rolling: RollingWindow }
  | { kind: 'range'; fromDate: string; toDate: string };

export interface BrowseFilter {
  /** Empty ⇒ every type. */
  types: string[];
  time: TimeFilter;
  /** Full-text search (PostgreSQL web-search syntax); '' ⇒ none. */
  text: string;
  /** Each list: empty ⇒ no restriction; sorted, no duplicates. */
  instruments: string[];
  producerIds: string[];
  runKinds: RunKind[];
  freshness: Freshness | null;
}

export const NO_FILTER: BrowseFilter = {
  types: [],
  time: { kind: 'all' },
  text: '',
  instruments: [],
  producerIds: [],
  runKinds: [],
  freshness: null,
};

export { RUN_KINDS } from '../domain/types.js';

/** Anything narrower than every record of the agent. */
export function isFiltered(filter: BrowseFilter): boolean {
  return Object.keys(toMemoryFilter(filter, 'UTC')).length > 0;
}

export const ROLLING_OPTIONS: { value: RollingWindow; label: string }[] = [
  { value: 'LAST_1H', label: '1h' },
  { value: 'LAST_6H', label: '6h' },
  { value: 'LAST_24H', label: '24h' },
];

/** The browser's IANA zone, sent with every window so local days are the operator's days (B3). */
export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

export function toWindowInput(time: TimeFilter, timeZone: string): TimeWindowInput | undefined {
  switch (time.kind) {
    case 'all':
      return undefined;
    case 'rolling':
      return { rolling: time.rolling, timeZone };
    case 'range':
      return { fromDate: time.fromDate, toDate: time.toDate, timeZone };
  }
}

/** The API's filter: only the fields that restrict, lists sorted (the same filter, the same key). */
export function toMemoryFilter(filter: BrowseFilter, timeZone: string): MemoryFilter {
  const window = toWindowInput(filter.time, timeZone);
  const text = filter.text.trim();
  const list = <T extends string>(values: T[]) => [...new Set(values)].sort();
  return {
    ...(filter.types.length ? { types: list(filter.types) } : {}),
    ...(window ? { window } : {}),
    ...(text ? { text } : {}),
    ...(filter.instruments.length ? { instruments: list(filter.instruments) } : {}),
    ...(filter.producerIds.length ? { producerIds: list(filter.producerIds) } : {}),
    ...(filter.runKinds.length ? { runKinds: list(filter.runKinds) } : {}),
    ...(filter.freshness ? { freshness: filter.freshness } : {}),
  };
}

/** The filter the type list is counted with: every field but `types` (B1; the list picks among them). */
export function countFilterOf(filter: MemoryFilter): MemoryFilter {
  const { types: _selected, ...rest } = filter;
  return rest;
}

/** Identity of a filter: a change of key means a new first page and a new subscription. */
export function filterKey(filter: BrowseFilter, timeZone: string): string {
  return JSON.stringify(toMemoryFilter(filter, timeZone));
}

const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;
/** The server's limit on a custom range (B3), checked here first so the page never asks for more. */
export const MAX_RANGE_DAYS = 366;
const DAY_MS = 86_400_000;

/** Calendar days from `from` to `to`, both included (dates as UTC days: no zone moves them). */
function daysInRange(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS) + 1;
}

/** The local calendar date (YYYY-MM-DD) of an instant in the browser's zone. */
export function localDate(at: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`;
}

/** Checks a custom range as typed; `toDate` empty ⇒ the single day `fromDate`. */
export function parseDateRange(
  fromDate: string,
  toDate: string,
): { ok: true; time: TimeFilter } | { ok: false; message: string } {
  if (!DATE_PATTERN.test(fromDate)) return { ok: false, message: 'Choose a start date.' };
  const to = toDate === '' ? fromDate : toDate;
  if (!DATE_PATTERN.test(to)) return { ok: false, message: 'The end date is not a valid date.' };
  // ISO dates compare as strings.
  if (to < fromDate) return { ok: false, message: 'The end date must not be before the start date.' };
  const days = daysInRange(fromDate, to);
  if (!Number.isFinite(days)) return { ok: false, message: 'The dates are not valid calendar dates.' };
  if (days > MAX_RANGE_DAYS) {
    return {
      ok: false,
      message: `A range may cover at most ${MAX_RANGE_DAYS} days; this one covers ${days}.`,
    };
  }
  return { ok: true, time: { kind: 'range', fromDate, toDate: to } };
}

export function describeTimeFilter(time: TimeFilter): string {
  switch (time.kind) {
    case 'all':
      return 'All time';
    case 'rolling':
      return `Last ${ROLLING_OPTIONS.find((option) => option.value === time.rolling)?.label ?? time.rolling}`;
    case 'range':
      return time.fromDate === time.toDate
        ? formatLocalDate(time.fromDate)
        : `${formatLocalDate(time.fromDate)} – ${formatLocalDate(time.toDate)}`;
  }
}

const KIND_LABELS: Record<RunKind, string> = { ANALYSIS: 'Analysis', TRADING: 'Trading', REVIEW: 'Review' };

export function runKindLabel(kind: RunKind): string {
  return KIND_LABELS[kind];
}

/**
 * The filter in words, as the list's summary and the collapsed filter button say it; `producerName`
 * names a producer id (unknown ids are counted).
 */
export function describeFilter(
  filter: BrowseFilter,
  producerName: (id: string) => string | null = () => null,
): string {
  const parts = [
    describeTimeFilter(filter.time),
    filter.types.length ? filter.types.join(', ') : 'all types',
  ];
  const text = filter.text.trim();
  if (text) parts.push(`“${text}”`);
  if (filter.instruments.length) parts.push(filter.instruments.join(', '));
  if (filter.producerIds.length) {
    const names = filter.producerIds.map(producerName);
    parts.push(names.every((name) => name !== null) ? names.join(', ') : `${names.length} producers`);
  }
  if (filter.runKinds.length) parts.push(filter.runKinds.map(runKindLabel).join(', '));
  if (filter.freshness) parts.push(filter.freshness === 'FRESH' ? 'fresh only' : 'stale only');
  return parts.join(' · ');
}

/** Can a record written from now on still belong to this window? Not to a range that ended before today. */
export function windowIsOpen(time: TimeFilter, now: Date): boolean {
  return time.kind !== 'range' || time.toDate >= localDate(now);
}

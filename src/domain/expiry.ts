// The single place that derives a record's expiry: stamping new writes (X1–X6) and evaluating stored ones (X7–X10).
import { isStorableInstant } from './instant-range.js';
import { isSchedule, scheduleMs } from './schedule.js';
import type { FieldError, JsonObject, RunKind } from './types.js';

export const ANALYSIS_POLICY = 'analysis_schedule_v2';
export const EXPLICIT_STALE_AFTER_POLICY = 'explicit_stale_after';
export const EXPLICIT_VALID_FOR_POLICY = 'explicit_valid_for';
export const LEGACY_TIMEFRAME_POLICY = 'legacy_timeframe';

export const VALID_FOR_MAX_SECONDS = 31_536_000;

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
// X3: an unscheduled Analysis publication is valid for 30 minutes.
const UNSCHEDULED_ANALYSIS_MS = 30 * MINUTE_MS;
// X9: implicit validity of legacy records with provenance, by timeframe; anything else gets the default.
const LEGACY_TIMEFRAME_MS: Record<string, number> = {
  '15m': 30 * MINUTE_MS,
  '1h': 2 * HOUR_MS,
  '1d': 48 * HOUR_MS,
};
const LEGACY_DEFAULT_MS = 30 * MINUTE_MS;

export interface WriteExpiryInput {
  kind: RunKind;
  schedule: string | null;
  evidenceBoundary: Date | null;
  publishedAt: Date;
  metadata: JsonObject;
}

export type WriteExpiryResult =
  | { ok: true; metadata: JsonObject; expiresAt: Date | null; expiryPolicy: string | null }
  | { ok: false; error: FieldError };

export interface StoredExpiryInput {
  metadata: unknown;
  createdAt: Date;
  timeframe: string | null;
  hasProvenance: boolean;
}

export type Freshness = 'FRESH' | 'STALE';

// X6: a full ISO-8601 instant with an explicit offset (`Z` or `±hh:mm`); seconds and fraction optional.
const STRICT_INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|([+-])(\d{2}):(\d{2}))$/;
// X7: legacy stamps are read leniently: any ISO-8601 date or date-time, offset optional.
const LENIENT_ISO = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

function hasOwn(obj: JsonObject, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key) && obj[key] !== undefined;
}

// W10: an instant outside the storable years counts as invalid, so no expiry can overflow its column.
function isValidDate(d: Date | null | undefined): d is Date {
  return isStorableInstant(d);
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** X6: parses a strict ISO-8601 instant with offset; rejects impossible calendar values that Date would roll over. */
export function parseStrictInstant(value: unknown): Date | null {
  if (typeof value !== 'string') return null;
  const m = STRICT_INSTANT.exec(value);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, , oh, om] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s ?? '0') > 59) return null;
  if (oh !== undefined && (Number(oh) > 23 || Number(om) > 59)) return null;
  const parsed = new Date(value);
  return isValidDate(parsed) ? parsed : null;
}

// X7: offset-less legacy stamps are read as UTC so the result never depends on the server's time zone.
function parseLenientInstant(value: unknown): Date | null {
  if (typeof value !== 'string') return null;
  const m = LENIENT_ISO.exec(value.trim());
  if (!m) return null;
  let text = value.trim().replace(' ', 'T').replace(',', '.');
  if (m[1] === undefined && text.includes('T')) text += 'Z';
  const parsed = new Date(text);
  return isValidDate(parsed) ? parsed : null;
}

function addMs(base: Date, ms: number): Date | null {
  const d = new Date(base.getTime() + ms);
  return isValidDate(d) ? d : null;
}

function isValidForSeconds(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= VALID_FOR_MAX_SECONDS;
}

/** New writes (X1–X6): returns the metadata to store (a new object; input not mutated) and the derived expiry. */
export function stampWriteExpiry(input: WriteExpiryInput): WriteExpiryResult {
  if (input.kind === 'ANALYSIS') return stampAnalysis(input);
  return checkExplicitValidity(input);
}

// X1–X4: the backend owns Analysis expiry; caller values are discarded, never validated.
function stampAnalysis(input: WriteExpiryInput): WriteExpiryResult {
  const { schedule, evidenceBoundary, publishedAt } = input;
  // X2 needs both a known schedule and a boundary; anything less is treated as unscheduled (X3).
  const scheduled = schedule !== null && isSchedule(schedule) && isValidDate(evidenceBoundary);
  const expiresAt = scheduled
    ? new Date(evidenceBoundary.getTime() + 2 * scheduleMs(schedule))
    : new Date(publishedAt.getTime() + UNSCHEDULED_ANALYSIS_MS);
  const metadata: JsonObject = { ...input.metadata };
  delete metadata.valid_for_seconds;
  metadata.stale_after = expiresAt.toISOString();
  metadata.expiry_policy = ANALYSIS_POLICY;
  return { ok: true, metadata, expiresAt, expiryPolicy: ANALYSIS_POLICY };
}

// X6: Trading and Review keep caller-set validity; both fields are validated, stale_after wins.
function checkExplicitValidity(input: WriteExpiryInput): WriteExpiryResult {
  const { metadata, publishedAt } = input;
  let staleAfter: Date | null = null;
  if (hasOwn(metadata, 'stale_after')) {
    staleAfter = parseStrictInstant(metadata.stale_after);
    if (staleAfter === null) {
      return {
        ok: false,
        error: {
          field: 'metadata.stale_after',
          message:
            'metadata.stale_after must be an ISO-8601 instant with an offset, for example 2026-01-01T10:00:00Z.',
        },
      };
    }
  }
  let validForMs: number | null = null;
  if (hasOwn(metadata, 'valid_for_seconds')) {
    const value = metadata.valid_for_seconds;
    if (!isValidForSeconds(value)) {
      return {
        ok: false,
        error: {
          field: 'metadata.valid_for_seconds',
          message: `metadata.valid_for_seconds must be an integer from 1 to ${VALID_FOR_MAX_SECONDS} (one year).`,
        },
      };
    }
    validForMs = value * 1000;
  }
  const stored: JsonObject = { ...metadata };
  if (staleAfter !== null) {
    return { ok: true, metadata: stored, expiresAt: staleAfter, expiryPolicy: EXPLICIT_STALE_AFTER_POLICY };
  }
  if (validForMs !== null) {
    return {
      ok: true,
      metadata: stored,
      expiresAt: new Date(publishedAt.getTime() + validForMs),
      expiryPolicy: EXPLICIT_VALID_FOR_POLICY,
    };
  }
  return { ok: true, metadata: stored, expiresAt: null, expiryPolicy: null };
}

/** Records stored verbatim (legacy imports) (X7–X10). Never throws; never changes metadata. */
export function evaluateStoredExpiry(input: StoredExpiryInput): {
  expiresAt: Date | null;
  expiryPolicy: string | null;
} {
  const { metadata, createdAt, timeframe, hasProvenance } = input;
  const meta: JsonObject | null =
    typeof metadata === 'object' && metadata !== null && !Array.isArray(metadata)
      ? (metadata as JsonObject)
      : null;
  // Unparseable legacy values are not errors: each rule falls through to the next one (X7 → X8 → X9 → X10).
  if (meta !== null) {
    const staleAfter = parseLenientInstant(meta.stale_after);
    if (staleAfter !== null) {
      const policy = meta.expiry_policy;
      return {
        expiresAt: staleAfter,
        expiryPolicy: typeof policy === 'string' && policy.length > 0 ? policy : EXPLICIT_STALE_AFTER_POLICY,
      };
    }
    const validFor = meta.valid_for_seconds;
    if (typeof validFor === 'number' && Number.isInteger(validFor) && validFor > 0) {
      const expiresAt = addMs(createdAt, validFor * 1000);
      if (expiresAt !== null) return { expiresAt, expiryPolicy: EXPLICIT_VALID_FOR_POLICY };
    }
  }
  if (hasProvenance) {
    // Own-property lookup so a timeframe like 'constructor' cannot reach Object.prototype.
    const ms =
      timeframe !== null && Object.prototype.hasOwnProperty.call(LEGACY_TIMEFRAME_MS, timeframe)
        ? (LEGACY_TIMEFRAME_MS[timeframe] ?? LEGACY_DEFAULT_MS)
        : LEGACY_DEFAULT_MS;
    return { expiresAt: addMs(createdAt, ms), expiryPolicy: LEGACY_TIMEFRAME_POLICY };
  }
  return { expiresAt: null, expiryPolicy: null };
}

/** FRESH iff the record has no expiry or `at` is strictly before it. */
export function freshnessAt(expiresAt: Date | null, at: Date): Freshness {
  return expiresAt === null || at.getTime() < expiresAt.getTime() ? 'FRESH' : 'STALE';
}

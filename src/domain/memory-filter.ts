// The operator browser's filter (B2, B3, B5, B11) and page cursors (B4), as pure
// rules: a filter resolved once at `now`, the live-update predicate (L1), and cursors that pin the
// list they came from.
import { createHash } from 'node:crypto';
import { decodeCursor, encodeCursor, type CursorPosition } from './cursor.js';
import { InputError, requireStorableText } from './errors.js';
import { freshnessAt, type Freshness } from './expiry.js';
import {
  normalizeFreshness,
  normalizeInstruments,
  normalizeProducerIds,
  normalizeRunKinds,
  normalizeText,
  normalizeTypes,
} from './filter-fields.js';
import { resolveTimeWindow, type ResolvedWindow, type TimeWindowArgs } from './time-window.js';
import type { RunKind } from './types.js';

/** The `MemoryFilter` argument as GraphQL (and the export's query string) hands it over. */
export interface MemoryFilterArgs {
  types?: readonly string[] | null;
  window?: TimeWindowArgs | null;
  /** Full-text search over content and metadata text (PostgreSQL `websearch_to_tsquery` syntax). */
  text?: string | null;
  /** Records targeting at least one of these instruments (agent-wide records do not match). */
  instruments?: readonly string[] | null;
  /** Records written by runs of these producers. */
  producerIds?: readonly string[] | null;
  /** Records written by runs of these kinds (imported records without provenance do not match). */
  runKinds?: readonly RunKind[] | null;
  /** FRESH: without expiry or expiring after now; STALE: expired at now (freshnessAt). */
  freshness?: Freshness | null;
}

/** A filter with its window resolved to absolute bounds; `null` means "no restriction". */
export interface ResolvedFilter {
  types: string[] | null;
  window: ResolvedWindow | null;
  text: string | null;
  instruments: string[] | null;
  producerIds: string[] | null;
  runKinds: RunKind[] | null;
  /**
   * The wanted freshness and the instant a list evaluates it at: the request's `now` (live delivery
   * evaluates each record when it arrives, see matchesFilter).
   */
  freshness: { state: Freshness; at: Date } | null;
}

/** No restriction at all: every record of the agent. */
export const EVERY_RECORD: ResolvedFilter = Object.freeze({
  types: null,
  window: null,
  text: null,
  instruments: null,
  producerIds: null,
  runKinds: null,
  freshness: null,
});

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

/**
 * Validates and resolves a filter at `now` (B3). An empty or absent `types` list means all types.
 * Throws BAD_USER_INPUT naming the field (`types[2]`, `window.timeZone`, …).
 */
export function resolveFilter(filter: MemoryFilterArgs | null | undefined, now: Date): ResolvedFilter {
  // W10: every text argument of the filter, before any rule reads it.
  requireStorableText([
    ...(filter?.types ?? []).map((type, index) => [`types[${index}]`, type] as const),
    ...(filter?.instruments ?? []).map((id, index) => [`instruments[${index}]`, id] as const),
    ['window.timeZone', filter?.window?.timeZone],
    ['text', filter?.text],
  ]);
  const rest = {
    types: normalizeTypes(filter?.types),
    text: normalizeText(filter?.text),
    instruments: normalizeInstruments(filter?.instruments),
    producerIds: normalizeProducerIds(filter?.producerIds),
    runKinds: normalizeRunKinds(filter?.runKinds),
    freshness: normalizeFreshness(filter?.freshness, now),
  };
  const windowInput = filter?.window ?? null;
  if (windowInput === null) return { ...rest, window: null };
  const resolved = resolveTimeWindow(windowInput, now);
  if (!resolved.ok) throw new InputError(resolved.error.message, resolved.error.field);
  return { ...rest, window: resolved.window };
}

/** What the live predicate reads of a record (its search text is matched by the database). */
export interface FilterFacts {
  type: string;
  createdAt: Date;
  instruments: readonly string[];
  producerId: string | null;
  runKind: RunKind | null;
  expiresAt: Date | null;
}

/**
 * Live-update predicate (B5, L1): does a newly stored record belong to the list the filter shows,
 * `text` aside (the database decides that, see store/filter-sql.ts)? A rolling window's `to` is the
 * instant the list was resolved, so newer records match; a date range keeps its end
 * (from <= createdAt < to). Freshness is evaluated when the record arrives: `now` is called only
 * for a filter with freshness (the common case reads no clock).
 */
export function matchesFilter(record: FilterFacts, filter: ResolvedFilter, now: () => Date): boolean {
  const { types, instruments, producerIds, runKinds, freshness, window } = filter;
  if (types !== null && !types.includes(record.type)) return false;
  if (instruments !== null && !targetsAny(record.instruments, instruments)) return false;
  if (producerIds !== null && (record.producerId === null || !producerIds.includes(record.producerId)))
    return false;
  if (runKinds !== null && (record.runKind === null || !runKinds.includes(record.runKind))) return false;
  if (freshness !== null && freshnessAt(record.expiresAt, now()) !== freshness.state) return false;
  if (window === null) return true;
  const at = record.createdAt.getTime();
  if (at < window.from.getTime()) return false;
  return window.rolling || at < window.to.getTime();
}

/** Whether a record targets one of `wanted` (a loop: no closure per record and subscriber). */
function targetsAny(targets: readonly string[], wanted: readonly string[]): boolean {
  for (const id of targets) if (wanted.includes(id)) return true;
  return false;
}

/**
 * memoryTypes' filter (B1): `window` is the argument it had before `filter` existed, kept as a
 * shorthand for `filter.window`; sending both is BAD_USER_INPUT naming `window` (two windows would
 * need a rule for which one wins).
 */
export function resolveTypeCountFilter(
  filter: MemoryFilterArgs | null | undefined,
  window: TimeWindowArgs | null | undefined,
  now: Date,
): ResolvedFilter {
  if (window && filter?.window) {
    throw new InputError('send the time window once: as window or as filter.window', 'window');
  }
  return resolveFilter({ ...filter, window: filter?.window ?? window ?? null }, now);
}

// ---- Page cursors (B4) ----------------------------------------------------------------------
// An edge cursor of `memories` is `<position cursor>.<page context>`: the position part is exactly
// the `encodeCursor` format live edges carry, the context pins the first page's resolved window
// and a digest of the agent and filter it was resolved for.

export interface PageCursor {
  position: CursorPosition;
  /** Bounds of the first page's window; null when the list has no time filter. */
  window: { from: Date; to: Date } | null;
  /** filterDigest() of the list the cursor came from. */
  digest: string;
}

export type ParsedAfter = { kind: 'position'; position: CursorPosition } | ({ kind: 'page' } & PageCursor);

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const DIGEST = /^[0-9a-f]{16}$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** A list argument as the digest sees it: deduplicated and sorted, empty as absent. */
const listKey = (values: readonly string[] | null | undefined) =>
  values?.length ? [...new Set(values)].sort() : null;

/**
 * Identifies the list a page cursor belongs to: agent, every filter field, window as requested (not
 * as resolved).
 */
export function filterDigest(agentId: string, filter: MemoryFilterArgs | null | undefined): string {
  const types = listKey(filter?.types);
  const fields = {
    text: filter?.text?.trim() || null,
    instruments: listKey(filter?.instruments),
    producerIds: listKey(filter?.producerIds?.map((id) => id.toLowerCase())),
    runKinds: listKey(filter?.runKinds),
    freshness: filter?.freshness ?? null,
  };
  const w = filter?.window ?? null;
  const window =
    w === null
      ? null
      : (w.rolling ?? null) !== null
        ? { rolling: w.rolling }
        : {
            fromDate: w.fromDate ?? null,
            toDate: w.toDate ?? w.fromDate ?? null,
            timeZone: w.timeZone ?? 'UTC',
          };
  // Without extra fields the digest stays what it was before they existed: older cursors keep working.
  const extra = Object.values(fields).some((value) => value !== null) ? fields : {};
  return createHash('sha256')
    .update(JSON.stringify({ agentId, types, window, ...extra }))
    .digest('hex')
    .slice(0, 16);
}

/** The cursors of one page: their context part is the page's, encoded once (not per edge). */
export function pageCursorEncoder(
  window: PageCursor['window'],
  digest: string,
): (position: CursorPosition) => string {
  const context = `${window ? window.from.toISOString() : ''}|${window ? window.to.toISOString() : ''}|${digest}`;
  const suffix = `.${Buffer.from(context, 'utf8').toString('base64url')}`;
  return (position) => `${encodeCursor(position)}${suffix}`;
}

function parseInstant(iso: string): Date | null {
  if (!ISO_INSTANT.test(iso)) return null;
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) || at.toISOString() !== iso ? null : at;
}

/** `after` is a position cursor (live edges, L2) or a page cursor (B4); null when it is neither. */
export function parseAfterCursor(after: string): ParsedAfter | null {
  const [positionPart, contextPart, ...rest] = after.split('.');
  if (positionPart === undefined || rest.length > 0) return null;
  const position = decodeCursor(positionPart);
  if (position === null) return null;
  if (contextPart === undefined) return { kind: 'position', position };
  if (!BASE64URL.test(contextPart)) return null;
  const bytes = Buffer.from(contextPart, 'base64url');
  if (bytes.toString('base64url') !== contextPart) return null;
  const parts = bytes.toString('utf8').split('|');
  if (parts.length !== 3) return null;
  const [fromIso, toIso, digest] = parts as [string, string, string];
  if (!DIGEST.test(digest)) return null;
  if (fromIso === '' && toIso === '') return { kind: 'page', position, window: null, digest };
  const from = parseInstant(fromIso);
  const to = parseInstant(toIso);
  if (from === null || to === null || from.getTime() >= to.getTime()) return null;
  return { kind: 'page', position, window: { from, to }, digest };
}

/**
 * The filter a `memories` request runs with (B4): resolved at `now` for a first page or a position
 * cursor; for a page cursor, the first page's window bounds, once proven to be what this request's
 * window resolves to at the cursor's resolution instant. Throws BAD_USER_INPUT (`after`, or the
 * filter's own field).
 */
export function resolvePageFilter(
  agentId: string,
  filter: MemoryFilterArgs | null | undefined,
  after: string | null | undefined,
  now: Date,
): { filter: ResolvedFilter; position: CursorPosition | null; digest: string } {
  const resolved = resolveFilter(filter, now);
  const digest = filterDigest(agentId, filter);
  if (after === null || after === undefined) return { filter: resolved, position: null, digest };
  const parsed = parseAfterCursor(after);
  if (parsed === null) throw new InputError('after is not a cursor returned by this API', 'after');
  if (parsed.kind === 'position') return { filter: resolved, position: parsed.position, digest };
  if (parsed.digest !== digest || (parsed.window === null) !== (resolved.window === null)) {
    throw new InputError(
      'after belongs to a list with another agent or filter; send the same filter',
      'after',
    );
  }
  if (parsed.window === null || resolved.window === null) {
    return { filter: resolved, position: parsed.position, digest };
  }
  // A rolling window resolved at its own `to` reproduces its bounds; a date range does at any instant.
  const again = resolveTimeWindow(filter?.window ?? {}, parsed.window.to);
  if (
    !again.ok ||
    again.window.from.getTime() !== parsed.window.from.getTime() ||
    again.window.to.getTime() !== parsed.window.to.getTime()
  ) {
    throw new InputError('after does not match the time filter of this list', 'after');
  }
  return { filter: { ...resolved, window: again.window }, position: parsed.position, digest };
}

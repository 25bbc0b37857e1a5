// The fields of a browse filter one by one (B2): each checked, normalised (lists
// deduplicated and sorted, so equal filters resolve equally) or refused naming its field.
import { InputError } from './errors.js';
import type { Freshness } from './expiry.js';
import { quoteInput } from './text-hygiene.js';
import { RUN_KINDS, type RunKind } from './types.js';
import { isUuid } from './uuid.js';
import { TYPE_PATTERN } from './write-validation.js';

export const MAX_FILTER_TYPES = 100;
/** Instruments, producers: at most this many in one filter. */
export const MAX_FILTER_VALUES = 100;
/**
 * B11, S7: a search is bounded in characters and in words. 200 characters hold a sentence-long
 * quote, and so do 16 words (the phrase of S7's tests has six). Every word is one GIN lookup over
 * all agents' records — a common word's posting list holds most of the table (≈ 2 ms per 30,000
 * records each, measured) — so words bound the index work of one search.
 */
export const MAX_SEARCH_TEXT = 200;
export const MAX_SEARCH_WORDS = 16;
/** A word of a search text: a run of letters, marks or digits of any script (punctuation parts words). */
const SEARCH_WORD = /[\p{L}\p{M}\p{N}]+/gu;
const INSTRUMENT_ID_MAX = 64;

/** Search text, trimmed; blank means no search. */
export function normalizeText(text: string | null | undefined): string | null {
  const trimmed = text?.trim() ?? '';
  if (trimmed === '') return null;
  if (trimmed.length > MAX_SEARCH_TEXT) {
    throw new InputError(`text may be at most ${MAX_SEARCH_TEXT} characters`, 'text');
  }
  const words = searchWords(trimmed);
  if (words > MAX_SEARCH_WORDS) {
    throw new InputError(
      `text may hold at most ${MAX_SEARCH_WORDS} words (\`or\` between them not counted), ${words} given: search for fewer`,
      'text',
    );
  }
  return trimmed;
}

/** B11: how many words a search text holds; `or`, websearch_to_tsquery's operator, is none of them. */
function searchWords(text: string): number {
  let words = 0;
  for (const [word] of text.matchAll(SEARCH_WORD)) if (word.toLowerCase() !== 'or') words++;
  return words;
}

/** A list filter: empty or absent means no restriction; each value checked, then deduplicated and sorted. */
function normalizeList<T extends string>(
  field: string,
  values: readonly T[] | null | undefined,
  valid: (value: T) => boolean,
): T[] | null {
  if (!values || values.length === 0) return null;
  if (values.length > MAX_FILTER_VALUES) {
    throw new InputError(`${field} may list at most ${MAX_FILTER_VALUES} values`, field);
  }
  for (const [index, value] of values.entries()) {
    if (!valid(value))
      throw new InputError(`${field}[${index}] is not valid: ${quoteInput(value)}`, `${field}[${index}]`);
  }
  return [...new Set(values)].sort();
}

export function normalizeFreshness(
  freshness: string | null | undefined,
  at: Date,
): { state: Freshness; at: Date } | null {
  if (freshness === null || freshness === undefined) return null;
  if (freshness === 'FRESH' || freshness === 'STALE') return { state: freshness, at };
  throw new InputError(`freshness must be FRESH or STALE: ${quoteInput(freshness)}`, 'freshness');
}

export function normalizeTypes(types: readonly string[] | null | undefined): string[] | null {
  if (!types || types.length === 0) return null;
  if (types.length > MAX_FILTER_TYPES) {
    throw new InputError(`types may list at most ${MAX_FILTER_TYPES} types`, 'types');
  }
  for (const [index, type] of types.entries()) {
    // A type that no record can have is a client bug, not an empty page.
    if (!TYPE_PATTERN.test(type))
      throw new InputError(`types[${index}] is not a memory type: ${quoteInput(type)}`, `types[${index}]`);
  }
  return [...new Set(types)].sort();
}

/** Instrument ids as stored (case-sensitive); one no record targets simply matches nothing. */
export function normalizeInstruments(ids: readonly string[] | null | undefined): string[] | null {
  return normalizeList('instruments', ids, (id) => id.length > 0 && id.length <= INSTRUMENT_ID_MAX);
}

/** Producer ids, lowercase like stored UUIDs; another agent's producer simply matches nothing (S1). */
export function normalizeProducerIds(ids: readonly string[] | null | undefined): string[] | null {
  const valid = normalizeList('producerIds', ids, isUuid);
  return valid && [...new Set(valid.map((id) => id.toLowerCase()))].sort();
}

export function normalizeRunKinds(kinds: readonly RunKind[] | null | undefined): RunKind[] | null {
  return normalizeList('runKinds', kinds, (kind) => RUN_KINDS.includes(kind));
}

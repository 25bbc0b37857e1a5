// The browse filter (B2, B3, issue 12 item 4) as SQL: the one definition the page, the type counts,
// a subscriber's replay and the live search check use, and the full-text search document that the
// GIN index "Memory_search_idx" (migration 20261130090000_memory_search) is built on.
import type { ResolvedFilter } from '../domain/memory-filter.js';
import type { Sql } from './db.js';

/** Collects a statement's parameters; each call returns its placeholder (`$1`, `$2`, …). */
export type Param = (value: unknown) => string;

export function parameters(): { values: unknown[]; param: Param } {
  const values: unknown[] = [];
  return { values, param: (value) => `$${values.push(value)}` };
}

/**
 * Metadata as the search reads it. `metadata` may hold any valid JSON (W10), but JSON text with a
 * `\u0000` escape or a lone surrogate escape cannot become PostgreSQL text, so json_to_tsvector would
 * fail (a 500 on the write, through the index). Such escapes read as `\u0020` (a space): six
 * characters for six, so the JSON stays valid whatever precedes them, and only records holding a `\u`
 * escape pay for the regular expression.
 */
const SEARCHABLE_METADATA = String.raw`CASE WHEN strpos(m.metadata::text, '\u') = 0 THEN m.metadata ELSE regexp_replace(m.metadata::text, '\\u(0000|d[89a-f][0-9a-f]{2})', '\\u0020', 'gi')::json END`;

/**
 * What a record is searched by: its content and the string values of its metadata (keys, numbers
 * and booleans are not text), with English stemming and stop words. IMMUTABLE and written exactly as
 * the index expression, so the planner can use the GIN index. Over `m`, a "Memory" row.
 */
const SEARCH_DOCUMENT = `(to_tsvector('english'::regconfig, m.content) || json_to_tsvector('english'::regconfig, ${SEARCHABLE_METADATA}, '["string"]'::jsonb))`;

/** A search box's syntax (quotes, `or`, `-`); websearch_to_tsquery never raises a syntax error. */
const searchQuery = (text: string) => `websearch_to_tsquery('english'::regconfig, ${text})`;

export interface FilterSql {
  /** Conditions on `m` ("Memory"), to be joined with AND. */
  where: string[];
  /**
   * Names the statement text the conditions make (named statements keep one text per name): one
   * letter per condition template, in a fixed order, so two different texts never share a variant.
   * Null for a search: how many records a search text matches decides the plan (a rare word: the
   * GIN index, then sort; a common one: newest first by the (agentId, createdAt) index until the
   * page is full), and a named statement could settle on one generic plan for every text — 100×
   * slower for the other kind. Likewise for several types, producers or instruments (`= ANY(…)`):
   * how many of the agent's records match decides between walking the newest first and fetching the
   * matches then sorting; the generic plan of a page for the bench's big agent took 10× (types),
   * 50× (one producer) and 5× (one instrument) the time of the plan made with the values (issue 14).
   * Unnamed statements are planned with their values each time; named ones once per connection
   * (src/store/db.ts).
   */
  variant: string | null;
}

/** A statement's name from its caller's prefix and the filter's variant; undefined: an unnamed statement. */
export function statementName(prefix: string, variant: string | null): string | undefined {
  return variant === null ? undefined : `${prefix}_${variant}`;
}

/**
 * The filter as SQL conditions on `m`. `list` applies from <= createdAt < to; `live` (a subscriber's
 * replay) leaves a rolling window open above, as matchesFilter does. Freshness is evaluated at the
 * instant the filter was resolved. The page order stays (createdAt DESC, id DESC): search narrows the
 * list, it does not rank it (B4).
 */
export function filterSql(
  agentId: string,
  filter: ResolvedFilter,
  mode: 'list' | 'live',
  param: Param,
): FilterSql {
  const where = [`m."agentId" = ${param(agentId)}`];
  let variant = '';
  const add = (code: string, condition: string) => {
    variant += code;
    where.push(condition);
  };
  // One type is an equality, so the (agentId, type, createdAt, id) index yields the page in order
  // (with `= ANY(…)` the planner of a prepared statement scans all the agent's records instead).
  const { types, window, text, instruments, producerIds, runKinds, freshness } = filter;
  if (types?.length === 1) add('t', `m.type = ${param(types[0])}`);
  else if (types !== null) add('T', `m.type = ANY(${param(types)}::text[])`);
  if (window) {
    add('w', `m."createdAt" >= ${param(window.from)}`);
    if (mode === 'list' || !window.rolling) add('c', `m."createdAt" < ${param(window.to)}`);
  }
  if (text !== null) add('s', `${SEARCH_DOCUMENT} @@ ${searchQuery(`${param(text)}::text`)}`);
  // Any of the instruments among the record's targets; an agent-wide record targets none.
  if (instruments !== null)
    add(
      'i',
      `EXISTS (SELECT 1 FROM "MemoryTarget" t WHERE t."memoryId" = m.id AND t."instrumentId" = ANY(${param(instruments)}::text[]))`,
    );
  // Provenance is denormalised onto the record (immutable), so no join with "Run".
  if (producerIds !== null) add('p', `m."producerId" = ANY(${param(producerIds)}::uuid[])`);
  // Sent as text[]: PGlite serialises an array parameter by the array types it knew when it opened,
  // and a store it migrated itself learnt "RunKind"[] only afterwards.
  if (runKinds !== null) add('k', `m."runKind" = ANY(${param(runKinds)}::text[]::"RunKind"[])`);
  if (freshness?.state === 'FRESH')
    add('f', `(m."expiresAt" IS NULL OR m."expiresAt" > ${param(freshness.at)})`);
  else if (freshness?.state === 'STALE') add('x', `m."expiresAt" <= ${param(freshness.at)}`);
  const plannedWithValues = text !== null || /[Tpi]/.test(variant);
  return { where, variant: plannedWithValues ? null : variant || 'all' };
}

/**
 * L1 with `text`: which of `texts` the record `memoryId` of `agentId` matches, as filterSql's search
 * condition decides — ONE statement for every search text asked about one record (its document is
 * built once).
 */
export async function searchTextsMatching(
  sql: Sql,
  agentId: string,
  memoryId: string,
  texts: readonly string[],
): Promise<Set<string>> {
  const rows = await sql.query<{ text: string }>(
    `WITH r AS MATERIALIZED (SELECT ${SEARCH_DOCUMENT} AS document FROM "Memory" m WHERE m.id = $1 AND m."agentId" = $2)
     SELECT q.text FROM r, unnest($3::text[]) AS q(text) WHERE r.document @@ ${searchQuery('q.text')}`,
    [memoryId, agentId, texts],
    'search_match',
  );
  return new Set(rows.map((row) => row.text));
}

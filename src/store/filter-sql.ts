// The browse filter (B2, B3, B11) as SQL: the one definition the page, the type counts,
// a subscriber's replay and the live search check use.
import type { ResolvedFilter } from '../domain/memory-filter.js';
import type { Sql } from './db.js';

/** Collects a statement's parameters; each call returns its placeholder (`$1`, `$2`, …). */
export type Param = (value: unknown) => string;

export function parameters(): { values: unknown[]; param: Param } {
  const values: unknown[] = [];
  return { values, param: (value) => `$${values.push(value)}` };
}

/**
 * What a record is searched by (B11): `"searchDocument"`, a stored generated column — content and the
 * string values of metadata, English, W10's escapes read as spaces — computed once when the row is
 * written (migration 20261201120000_stored_search_document) and indexed by "Memory_search_idx", so
 * neither a GIN recheck nor a walk newest first rebuilds a document per candidate (S7). Over `m`.
 */
const SEARCH_DOCUMENT = 'm."searchDocument"';

/** A search box's syntax (quotes, `or`, `-`); websearch_to_tsquery never raises a syntax error. */
const searchQuery = (text: string) => `websearch_to_tsquery('english'::regconfig, ${text})`;

export interface FilterSql {
  /** Conditions on `m` ("Memory"), to be joined with AND. */
  where: string[];
  /** D2: the agent id's placeholder, for the statement's other tables (one shard on Citus). */
  agent: string;
  /**
   * Names the statement text the conditions make (named statements keep one text per name): one
   * letter per condition template, in a fixed order, so two different texts never share a variant.
   * Null for a search: how many records a search text matches decides the plan (a rare word: the
   * GIN index, then sort; a common one: newest first by the (agentId, createdAt) index until the
   * page is full), and a named statement could settle on one generic plan for every text — 100×
   * slower for the other kind. Both read the stored document (S7), so a misjudged text (a phrase is
   * priced like its words ANDed) costs a walk of the agent's records, never a rebuild of documents. Likewise for several types, producers or instruments (`= ANY(…)`):
   * how many of the agent's records match decides between walking the newest first and fetching the
   * matches then sorting; the generic plan of a page for the bench's big agent took 10× (types),
   * 50× (one producer) and 5× (one instrument) the time of the plan made with the values.
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
  const agent = param(agentId);
  const where = [`m."agentId" = ${agent}`];
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
      `EXISTS (SELECT 1 FROM "MemoryTarget" t WHERE t."agentId" = ${agent} AND t."memoryId" = m.id AND t."instrumentId" = ANY(${param(instruments)}::text[]))`,
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
  return { where, agent, variant: plannedWithValues ? null : variant || 'all' };
}

/**
 * L1 with `text`: which of `texts` the record `memoryId` of `agentId` matches, as filterSql's search
 * condition decides (the same stored document) — ONE statement for every search text asked about
 * one record.
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

// V2, V3: the catalog kept from the venue's own answers. Hyperliquid's info endpoint answers
// {"type":"meta"} (the main dex) and {"type":"meta","dex":"xyz"} (a HIP-3 builder dex) with a
// `universe` of perps ({name, szDecimals, maxLeverage, isDelisted?}); this file checks such an
// answer and decides, for that dex's names only, what a sync changes. Nothing is ever deleted.
import { z } from 'zod';
import { dexOf, INSTRUMENT_ID_RULE, isBuilderDex, isInstrumentId } from './instrument-id.js';

const UniverseEntry = z.looseObject({
  name: z.string().min(1),
  szDecimals: z.number().int().min(0).max(32),
  maxLeverage: z.number().int().min(1).max(1000),
  isDelisted: z.boolean().optional(),
});

/** The part of a `meta` answer a sync reads; other keys (marginTables, collateralToken) pass. */
const MetaAnswer = z.looseObject({ universe: z.array(UniverseEntry).min(1, 'universe is empty') });

/** `{"type":"perpDexs"}`: index 0 is null (the main dex), the others name a builder dex. */
const PerpDexsAnswer = z.array(z.union([z.null(), z.looseObject({ name: z.string() })]));

export interface VenuePerp {
  name: string;
  szDecimals: number;
  maxLeverage: number;
  delisted: boolean;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; field: string; message: string };

function zodProblem(error: z.ZodError, root: string): { ok: false; field: string; message: string } {
  const issue = error.issues[0]!;
  const field = issue.path.reduce<string>(
    (name, part) => (typeof part === 'number' ? `${name}[${part}]` : `${name}.${String(part)}`),
    root,
  );
  return { ok: false, field, message: `${field}: ${issue.message}` };
}

/** V2: a `meta` answer for `dex` (null: the main dex), or what is wrong with it. */
export function parseMetaAnswer(answer: unknown, dex: string | null): Parsed<VenuePerp[]> {
  if (dex !== null && !isBuilderDex(dex))
    return {
      ok: false,
      field: 'dex',
      message: 'dex must be a builder dex name: lowercase letters and digits',
    };
  const parsed = MetaAnswer.safeParse(answer);
  if (!parsed.success) return zodProblem(parsed.error, 'meta');
  const seen = new Set<string>();
  const perps: VenuePerp[] = [];
  for (const [index, entry] of parsed.data.universe.entries()) {
    const field = `meta.universe[${index}].name`;
    if (!isInstrumentId(entry.name))
      return {
        ok: false,
        field,
        message: `${field} ${JSON.stringify(entry.name)} is not ${INSTRUMENT_ID_RULE}`,
      };
    // V2: a dex's answer names that dex's perps only (`xyz:` for xyz, unprefixed for the main dex).
    if (dexOf(entry.name) !== dex)
      return {
        ok: false,
        field,
        message: `${field} ${JSON.stringify(entry.name)} does not belong to ${dex === null ? 'the main dex' : `dex ${dex}`}`,
      };
    if (seen.has(entry.name))
      return { ok: false, field, message: `${field} ${JSON.stringify(entry.name)} is listed twice` };
    seen.add(entry.name);
    perps.push({
      name: entry.name,
      szDecimals: entry.szDecimals,
      maxLeverage: entry.maxLeverage,
      delisted: entry.isDelisted === true,
    });
  }
  return { ok: true, value: perps };
}

/** The builder dexes a `perpDexs` answer lists (the main dex, its null entry, is not one). */
export function parsePerpDexsAnswer(answer: unknown): Parsed<string[]> {
  const parsed = PerpDexsAnswer.safeParse(answer);
  if (!parsed.success) return zodProblem(parsed.error, 'perpDexs');
  const names = parsed.data.flatMap((entry) => (entry ? [entry.name] : []));
  const bad = names.findIndex((name) => !isBuilderDex(name));
  if (bad >= 0)
    return {
      ok: false,
      field: 'perpDexs',
      message: `perpDexs names ${JSON.stringify(names[bad])}, not a dex name`,
    };
  return { ok: true, value: names };
}

export interface CatalogRow {
  id: string;
  active: boolean;
  szDecimals: number | null;
  maxLeverage: number | null;
}

export interface CatalogSyncPlan {
  /** New names (a delisted one is added inactive, so history may still name it). */
  added: VenuePerp[];
  reactivated: string[];
  deactivated: string[];
  unchanged: number;
  /** Listed names whose venue parameters changed (written, not reported). */
  refreshed: VenuePerp[];
}

/**
 * V2: what a sync of one dex changes. `current` is that dex's part of the catalog. Listed and not
 * delisted ⇒ active; delisted or missing from the answer ⇒ inactive; nothing is removed (V3).
 */
export function planCatalogSync(
  current: readonly CatalogRow[],
  perps: readonly VenuePerp[],
): CatalogSyncPlan {
  const listed = new Map(perps.map((perp) => [perp.name, perp]));
  const known = new Map(current.map((row) => [row.id, row]));
  const plan: CatalogSyncPlan = { added: [], reactivated: [], deactivated: [], unchanged: 0, refreshed: [] };
  for (const perp of perps) {
    const row = known.get(perp.name);
    if (!row) {
      plan.added.push(perp);
      continue;
    }
    if (row.szDecimals !== perp.szDecimals || row.maxLeverage !== perp.maxLeverage) plan.refreshed.push(perp);
    if (row.active === !perp.delisted) plan.unchanged += 1;
    else if (perp.delisted) plan.deactivated.push(perp.name);
    else plan.reactivated.push(perp.name);
  }
  for (const row of current) {
    if (listed.has(row.id)) continue;
    if (row.active) plan.deactivated.push(row.id);
    else plan.unchanged += 1;
  }
  plan.deactivated.sort();
  plan.reactivated.sort();
  plan.added.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return plan;
}

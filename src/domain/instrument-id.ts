// V1: an instrument id is the venue's exact perpetual name — a main-dex name (`BTC`, `kPEPE`) or a
// builder-deployed (HIP-3) perp `<dex>:<coin>` (`xyz:TSLA`); case-sensitive, never rewritten. The
// catalog's CHECK constraint (migration venue_instrument_names) is the same pattern.

const BUILDER_DEX = /^[a-z0-9]{1,16}$/;
const INSTRUMENT_ID = /^(?:[A-Za-z0-9]{1,32}|[a-z0-9]{1,16}:[A-Za-z0-9]{1,32})$/;

export const INSTRUMENT_ID_RULE =
  'the venue\'s exact name: a main-dex perp ("BTC", "kPEPE") or a builder dex\'s "<dex>:<coin>" ("xyz:TSLA")';

export function isInstrumentId(id: string): boolean {
  return INSTRUMENT_ID.test(id);
}

/** A builder dex's name as the venue's perpDexs answer lists it (lowercase letters and digits). */
export function isBuilderDex(dex: string): boolean {
  return BUILDER_DEX.test(dex);
}

/** V2: the dex an id belongs to — its prefix, or null for the main dex. */
export function dexOf(id: string): string | null {
  const colon = id.indexOf(':');
  return colon < 0 ? null : id.slice(0, colon);
}

// V2: the venue's answers as plain data — what a sync of one dex changes, and which answers are refused.
import { describe, expect, it } from 'vitest';
import {
  parseMetaAnswer,
  parsePerpDexsAnswer,
  planCatalogSync,
  type VenuePerp,
} from '../../src/domain/venue-catalog.js';

const perp = (name: string, delisted = false, szDecimals = 2): VenuePerp => ({
  name,
  szDecimals,
  maxLeverage: 10,
  delisted,
});
const row = (id: string, active: boolean, szDecimals: number | null = 2) => ({
  id,
  active,
  szDecimals,
  maxLeverage: 10,
});

describe('V2: planning a catalog sync', () => {
  it('V2: a first import adds every name; a re-run of the same answer changes nothing', () => {
    const answer = [perp('BTC'), perp('kPEPE'), perp('HPOS', true)];
    const first = planCatalogSync([], answer);
    expect(first.added.map((p) => p.name)).toEqual(['BTC', 'HPOS', 'kPEPE']);
    expect(first).toMatchObject({ reactivated: [], deactivated: [], unchanged: 0 });
    const rerun = planCatalogSync([row('BTC', true), row('kPEPE', true), row('HPOS', false)], answer);
    expect(rerun).toEqual({ added: [], reactivated: [], deactivated: [], unchanged: 3, refreshed: [] });
  });

  it('V2: delisted or vanished ⇒ inactive, relisted ⇒ active, new parameters refreshed, an inactive vanished one unchanged', () => {
    const plan = planCatalogSync(
      [row('BTC', true, 5), row('SOL', true), row('kPEPE', true), row('HPOS', false), row('OLD', false)],
      [perp('BTC', false, 4), perp('SOL', true), perp('HPOS')],
    );
    expect(plan).toEqual({
      added: [],
      reactivated: ['HPOS'],
      deactivated: ['SOL', 'kPEPE'],
      unchanged: 2, // BTC (still active, its szDecimals refreshed) and OLD (gone, already inactive)
      refreshed: [perp('BTC', false, 4)],
    });
  });
});

describe('V2: reading the answers', () => {
  it("V2: perpDexs' index 0 is the main dex (null); the rest name builder dexes", () => {
    expect(parsePerpDexsAnswer([null, { name: 'xyz', fullName: 'XYZ' }, { name: 'flx' }])).toEqual({
      ok: true,
      value: ['xyz', 'flx'],
    });
    expect(parsePerpDexsAnswer({ universe: [] })).toMatchObject({ ok: false, field: 'perpDexs' });
    expect(parsePerpDexsAnswer([null, { name: 'XYZ' }])).toMatchObject({ ok: false });
  });

  it('V2: a meta answer is refused naming the first wrong field', () => {
    const entry = { name: 'xyz:TSLA', szDecimals: 3, maxLeverage: 10, marginTableId: 10 };
    expect(parseMetaAnswer({ universe: [entry], collateralToken: 0 }, 'xyz')).toEqual({
      ok: true,
      value: [{ name: 'xyz:TSLA', szDecimals: 3, maxLeverage: 10, delisted: false }],
    });
    expect(parseMetaAnswer({ universe: [{ ...entry, maxLeverage: 0 }] }, 'xyz')).toMatchObject({
      ok: false,
      field: 'meta.universe[0].maxLeverage',
    });
    expect(parseMetaAnswer({ universe: [{ ...entry, isDelisted: 'yes' }] }, 'xyz')).toMatchObject({
      ok: false,
      field: 'meta.universe[0].isDelisted',
    });
    expect(parseMetaAnswer({ universe: [entry] }, 'abc')).toMatchObject({
      ok: false,
      field: 'meta.universe[0].name',
    });
    expect(parseMetaAnswer(null, null)).toMatchObject({ ok: false, field: 'meta' });
  });
});

// The operator page's filter without a browser (B2, 8, 9): the address that carries it, the
// API filter it becomes, the type counts' filter and total, the export's address, the date-range checks.
import { describe, expect, it } from 'vitest';
import { addressWithFilter, filterFromSearch } from '../../src/web/filter-url.js';
import {
  NO_FILTER,
  countFilterOf,
  describeFilter,
  parseDateRange,
  toMemoryFilter,
  windowIsOpen,
  type BrowseFilter,
} from '../../src/web/filters.js';
import { attachmentName, exportAddress } from '../../src/web/export.js';
import { totalOf } from '../../src/web/hooks/use-type-counts.js';

const P1 = '7c0c8a3e-2f4b-4d35-9b8e-0d3f5a1c2b4d';
const P2 = '0a0c8a3e-2f4b-4d35-9b8e-0d3f5a1c2b4d';
const AGENT = '11111111-2f4b-4d35-9b8e-0d3f5a1c2b4d';

const FULL: BrowseFilter = {
  types: ['ema_handoff', 'macro_note'],
  time: { kind: 'range', fromDate: '2026-03-08', toDate: '2026-03-09' },
  text: 'funding "basis trade"',
  instruments: ['BTC', 'ETH'],
  producerIds: [P2, P1],
  runKinds: ['ANALYSIS', 'REVIEW'],
  freshness: 'STALE',
};
const at = (search: string, hash = '') => ({ pathname: '/', search, hash });

describe('item 4: the filter in the address', () => {
  it('round-trips every field through the query string, keeping ?agent= and the hash', () => {
    const address = addressWithFilter(at(`?agent=${AGENT}`, '#/context'), FULL);
    const url = new URL(address, 'http://x');
    expect(url.searchParams.get('agent')).toBe(AGENT);
    expect(url.hash).toBe('#/context');
    expect(filterFromSearch(url.search)).toEqual({ ...FULL, producerIds: [P2, P1].sort() });
  });

  it('no filter is a bare address; a rolling window is ?last=', () => {
    expect(addressWithFilter(at('?q=old&types=a'), NO_FILTER)).toBe('/');
    const rolling = { ...NO_FILTER, time: { kind: 'rolling', rolling: 'LAST_24H' } } as const;
    expect(addressWithFilter(at(''), rolling)).toBe('/?last=24h');
    expect(filterFromSearch('?last=24h').time).toEqual(rolling.time);
  });

  it('drops what the page would never write instead of failing: bad types, ids, kinds, dates, freshness', () => {
    const read = filterFromSearch(
      '?types=Bad-Type,ok_type&producers=nope,' +
        P1.toUpperCase() +
        '&kinds=TRADING,HACK&fresh=maybe&from=2026-02-31x&q=' +
        'x'.repeat(300),
    );
    expect(read.types).toEqual(['ok_type']);
    expect(read.producerIds).toEqual([P1]);
    expect(read.runKinds).toEqual(['TRADING']);
    expect(read.freshness).toBeNull();
    expect(read.time).toEqual({ kind: 'all' });
    expect(read.text).toHaveLength(200);
    // A range longer than the server allows is not read either (B3).
    expect(filterFromSearch('?from=2020-01-01&to=2026-01-01').time).toEqual({ kind: 'all' });
  });

  it('W10: reads no text the server would refuse — a cut never splits a surrogate pair, U+0000 is dropped', () => {
    const cut = filterFromSearch(`?q=${'x'.repeat(199)}${encodeURIComponent('😀')}`).text;
    expect(cut).toBe('x'.repeat(199));
    expect(filterFromSearch(`?q=${encodeURIComponent('😀'.repeat(150))}`).text).toBe('😀'.repeat(100));
    const read = filterFromSearch('?q=fund%00ing&instruments=ETH,B%00TC');
    expect(read.text).toBe('');
    expect(read.instruments).toEqual(['ETH']);
  });
});

describe('item 4: the API filter, the counts and the total', () => {
  it('sends only the fields that restrict, lists sorted, the text trimmed', () => {
    expect(toMemoryFilter(NO_FILTER, 'UTC')).toEqual({});
    expect(toMemoryFilter({ ...NO_FILTER, text: '   ' }, 'UTC')).toEqual({});
    expect(toMemoryFilter(FULL, 'America/New_York')).toEqual({
      types: ['ema_handoff', 'macro_note'],
      window: { fromDate: '2026-03-08', toDate: '2026-03-09', timeZone: 'America/New_York' },
      text: 'funding "basis trade"',
      instruments: ['BTC', 'ETH'],
      producerIds: [P2, P1].sort(),
      runKinds: ['ANALYSIS', 'REVIEW'],
      freshness: 'STALE',
    });
  });

  it('B1: the type list is counted with every field but the types; the total adds the selected ones', () => {
    const api = toMemoryFilter(FULL, 'UTC');
    const { types: _types, ...rest } = api;
    expect(countFilterOf(api)).toEqual(rest);
    const counts = [
      { type: 'ema_handoff', count: 7 },
      { type: 'funding_basis', count: 5 },
      { type: 'macro_note', count: 2 },
    ];
    expect(totalOf(counts, [])).toBe(14);
    expect(totalOf(counts, ['ema_handoff', 'macro_note'])).toBe(9);
  });

  it('says the filter in words, producers by name', () => {
    const name = (id: string) => (id === P1 ? 'ema-5m' : id === P2 ? 'news' : null);
    expect(describeFilter(NO_FILTER)).toBe('All time · all types');
    expect(describeFilter(FULL, name)).toBe(
      'Mar 8, 2026 – Mar 9, 2026 · ema_handoff, macro_note · “funding "basis trade"” · BTC, ETH · news, ema-5m · Analysis, Review · stale only',
    );
    expect(describeFilter({ ...NO_FILTER, producerIds: [P1, P2] })).toBe(
      'All time · all types · 2 producers',
    );
  });
});

describe('item 8: the export address mirrors the filter', () => {
  it('names every field as the API contract does', () => {
    const address = exportAddress(AGENT, toMemoryFilter(FULL, 'America/New_York'), 'csv');
    const params = new URL(address, 'http://x').searchParams;
    expect(Object.fromEntries(params)).toEqual({
      format: 'csv',
      agent_id: AGENT,
      types: 'ema_handoff,macro_note',
      instruments: 'BTC,ETH',
      producer_ids: [P2, P1].sort().join(','),
      run_kinds: 'ANALYSIS,REVIEW',
      text: 'funding "basis trade"',
      freshness: 'STALE',
      from_date: '2026-03-08',
      to_date: '2026-03-09',
      time_zone: 'America/New_York',
    });
    expect(exportAddress(AGENT, { window: { rolling: 'LAST_1H', timeZone: 'UTC' } }, 'ndjson')).toBe(
      `/api/v1/export?format=ndjson&agent_id=${AGENT}&rolling=LAST_1H&time_zone=UTC`,
    );
  });

  it('saves under the name the server gives', () => {
    expect(attachmentName('attachment; filename="demo-2026-11-30.csv"', 'x')).toBe('demo-2026-11-30.csv');
    expect(attachmentName(null, 'memories-export')).toBe('memories-export');
  });
});

describe('item 9: date ranges', () => {
  it('refuses more than 366 days on the page (B3), counting both ends', () => {
    expect(parseDateRange('2024-01-01', '2024-12-31').ok).toBe(true); // 366 days, a leap year
    expect(parseDateRange('2025-01-01', '2026-01-01').ok).toBe(true);
    expect(parseDateRange('2025-01-01', '2026-01-02')).toEqual({
      ok: false,
      message: 'A range may cover at most 366 days; this one covers 367.',
    });
  });

  it('a range that ended before today is closed to new records; rolling and all time are open', () => {
    const now = new Date(2026, 10, 30, 12);
    expect(windowIsOpen({ kind: 'range', fromDate: '2026-11-01', toDate: '2026-11-29' }, now)).toBe(false);
    expect(windowIsOpen({ kind: 'range', fromDate: '2026-11-01', toDate: '2026-11-30' }, now)).toBe(true);
    expect(windowIsOpen({ kind: 'rolling', rolling: 'LAST_1H' }, now)).toBe(true);
    expect(windowIsOpen({ kind: 'all' }, now)).toBe(true);
  });
});

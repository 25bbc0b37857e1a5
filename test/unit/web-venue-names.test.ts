// V1: the page keeps HIP-3 ids (`xyz:TSLA`) and case-sensitive main-dex ids (`kPEPE`) unchanged
// through its addresses — the filter in the query string, the Context tab's route, the export URL.
import { describe, expect, it } from 'vitest';
import { exportAddress } from '../../src/web/export.js';
import { addressWithFilter, filterFromSearch } from '../../src/web/filter-url.js';
import { NO_FILTER, toMemoryFilter } from '../../src/web/filters.js';
import { parseRoute, routeHash } from '../../src/web/route.js';

const AGENT = '11111111-2f4b-4d35-9b8e-0d3f5a1c2b4d';
const at = (search: string, hash = '') => ({ pathname: '/', search, hash });

describe('V1: venue names in the page addresses', () => {
  it('V1: the instruments filter round-trips xyz:TSLA and kPEPE through the address, as typed or encoded', () => {
    const filter = { ...NO_FILTER, instruments: ['kPEPE', 'xyz:TSLA'] };
    const address = addressWithFilter(at(`?agent=${AGENT}`), filter);
    expect(filterFromSearch(new URL(address, 'http://page').search).instruments).toEqual([
      'kPEPE',
      'xyz:TSLA',
    ]);
    expect(filterFromSearch('?instruments=xyz:TSLA,kPEPE').instruments).toEqual(['kPEPE', 'xyz:TSLA']);
    expect(filterFromSearch('?instruments=xyz%3ATSLA').instruments).toEqual(['xyz:TSLA']);
    // Case is kept: KPEPE is another name, not kPEPE.
    expect(filterFromSearch('?instruments=KPEPE').instruments).toEqual(['KPEPE']);
  });

  it("V1: the Context tab's route keeps a builder dex's instrument", () => {
    const route = { kind: 'context' as const, instrument: 'xyz:TSLA', at: null };
    expect(parseRoute(routeHash(route))).toEqual(route);
    expect(parseRoute('#/context?instrument=xyz:TSLA')).toEqual(route);
  });

  it('V1: the export address names the instruments so the server reads them back unchanged', () => {
    const filter = toMemoryFilter({ ...NO_FILTER, instruments: ['kPEPE', 'xyz:TSLA'] }, 'UTC');
    const address = new URL(exportAddress(AGENT, filter, 'csv'), 'http://page');
    expect(address.searchParams.get('instruments')).toBe('kPEPE,xyz:TSLA');
  });
});

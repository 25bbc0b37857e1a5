// The filter is part of the address (`/?q=funding&types=ema_handoff&last=24h`), so a view can be shared and
// survives a reload (B2). Reading is lenient: a value the page would not produce is dropped,
// never an error page; the server checks what is sent anyway. Other parameters (`agent`) are kept.
import { NO_FILTER, RUN_KINDS, parseDateRange, type BrowseFilter, type TimeFilter } from './filters.js';
import type { RollingWindow, RunKind } from './queries.js';

const ROLLING_PARAM: Record<RollingWindow, string> = { LAST_1H: '1h', LAST_6H: '6h', LAST_24H: '24h' };
const FILTER_PARAMS = ['q', 'types', 'instruments', 'producers', 'kinds', 'fresh', 'last', 'from', 'to'];
/** What the page itself would send: a value outside these shapes is not from a shared view. */
const TYPE = /^[a-z][a-z0-9_]{0,63}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_TEXT = 200;
const MAX_VALUES = 100;

/** U+0000 and unpaired surrogates: text the server refuses (W10). Code-unit regex, no `u` flag. */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const storable = (value: string) => !UNSTORABLE.test(value);

/** The search text, cut to the server's limit without splitting a surrogate pair; unstorable text is dropped. */
function textParam(params: URLSearchParams): string {
  const text = (params.get('q') ?? '').trim();
  if (!storable(text)) return '';
  const cut = text.slice(0, MAX_TEXT);
  return (/[\ud800-\udbff]$/.test(cut) ? cut.slice(0, -1) : cut).trim();
}

function listParam(params: URLSearchParams, name: string, valid: (value: string) => boolean): string[] {
  const values = (params.get(name) ?? '').split(',').filter((value) => value !== '' && valid(value));
  return [...new Set(values)].sort().slice(0, MAX_VALUES);
}

function timeParam(params: URLSearchParams): TimeFilter {
  const last = params.get('last');
  const rolling = (Object.keys(ROLLING_PARAM) as RollingWindow[]).find((key) => ROLLING_PARAM[key] === last);
  if (rolling) return { kind: 'rolling', rolling };
  const from = params.get('from');
  if (from === null) return { kind: 'all' };
  const parsed = parseDateRange(from, params.get('to') ?? '');
  return parsed.ok ? parsed.time : { kind: 'all' };
}

/** The filter an address names (none: every record). */
export function filterFromSearch(search: string): BrowseFilter {
  const params = new URLSearchParams(search);
  const fresh = params.get('fresh');
  return {
    types: listParam(params, 'types', (type) => TYPE.test(type)),
    time: timeParam(params),
    text: textParam(params),
    instruments: listParam(params, 'instruments', (id) => id.length <= 64 && storable(id)),
    producerIds: listParam(params, 'producers', (id) => UUID.test(id)).map((id) => id.toLowerCase()),
    runKinds: listParam(params, 'kinds', (kind) => RUN_KINDS.includes(kind as RunKind)) as RunKind[],
    freshness: fresh === 'fresh' ? 'FRESH' : fresh === 'stale' ? 'STALE' : NO_FILTER.freshness,
  };
}

/** The address of `filter`: the path and query with the filter's parameters replaced, hash kept. */
export function addressWithFilter(
  location: Pick<Location, 'pathname' | 'search' | 'hash'>,
  filter: BrowseFilter,
): string {
  const params = new URLSearchParams(location.search);
  for (const name of FILTER_PARAMS) params.delete(name);
  const text = filter.text.trim();
  if (text) params.set('q', text);
  const lists: [string, string[]][] = [
    ['types', filter.types],
    ['instruments', filter.instruments],
    ['producers', filter.producerIds],
    ['kinds', filter.runKinds],
  ];
  for (const [name, values] of lists) if (values.length) params.set(name, [...values].sort().join(','));
  if (filter.freshness) params.set('fresh', filter.freshness.toLowerCase());
  if (filter.time.kind === 'rolling') params.set('last', ROLLING_PARAM[filter.time.rolling]);
  if (filter.time.kind === 'range') {
    params.set('from', filter.time.fromDate);
    params.set('to', filter.time.toDate);
  }
  const query = params.toString();
  return `${location.pathname}${query ? `?${query}` : ''}${location.hash}`;
}

// GET /api/v1/export's query string (api-contract): `format`, the MemoryFilter's fields in snake_case
// (lists comma-separated) and `agent_id` for the admin token. Only the shape is checked here; the
// filter's own rules run in resolveFilter, whose fields fieldOfParameter() names back.
import type { Freshness } from '../domain/expiry.js';
import type { MemoryFilterArgs } from '../domain/memory-filter.js';
import { isValidTimeZone, type RollingWindow, type TimeWindowArgs } from '../domain/time-window.js';
import type { RunKind } from '../domain/types.js';
import { isUuid } from '../domain/uuid.js';
import { EXPORT_FORMATS, type ExportFormat } from './export-format.js';

export interface ExportQuery {
  format: ExportFormat;
  /** The admin token's agent (lowercased); null when absent. */
  agentId: string | null;
  filter: MemoryFilterArgs;
}

export type ParsedExportQuery =
  { ok: true; query: ExportQuery } | { ok: false; field: string; message: string };

const PARAMETERS = new Set([
  'format',
  'agent_id',
  'types',
  'instruments',
  'text',
  'rolling',
  'from_date',
  'to_date',
  'time_zone',
  'freshness',
  'producer_ids',
  'run_kinds',
]);

/** resolveFilter's and agentForRead's field names (GraphQL spelling) ⇒ the parameter that carries them. */
const PARAMETER_OF_FIELD: Record<string, string> = {
  agentId: 'agent_id',
  producerIds: 'producer_ids',
  runKinds: 'run_kinds',
  'window.rolling': 'rolling',
  'window.fromDate': 'from_date',
  'window.toDate': 'to_date',
  'window.timeZone': 'time_zone',
  // The only `window` failure left once rolling-with-dates is refused here: a range over 366 days.
  window: 'to_date',
};

/** The query parameter a filter failure is about: `types[2]` ⇒ `types`, `window.timeZone` ⇒ `time_zone`. */
export function parameterOfField(field: string | undefined): string {
  const base = (field ?? 'query').replace(/\[\d+\]$/, '');
  return PARAMETER_OF_FIELD[base] ?? base;
}

/** A filter failure's message in the query string's spelling (`fromDate` ⇒ `from_date`). */
export function inParameterWords(message: string): string {
  return message.replace(/\b(agentId|producerIds|runKinds|fromDate|toDate|timeZone)\b/g, (word) =>
    word.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`),
  );
}

const fail = (field: string, message: string): ParsedExportQuery => ({ ok: false, field, message });

/** `a, b,,c` ⇒ [a, b, c]; absent or empty ⇒ null (no restriction, like `[]` in GraphQL). */
function list(value: string | undefined): string[] | null {
  const items = value
    ?.split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  return items?.length ? items : null;
}

/** The time window of the filter; a lone `time_zone` (the page always sends its zone) is checked, then unused. */
function windowOf(values: Map<string, string>): { window: TimeWindowArgs | null } | ParsedExportQuery {
  const rolling = values.get('rolling');
  const fromDate = values.get('from_date');
  const toDate = values.get('to_date');
  const timeZone = values.get('time_zone');
  if (rolling && (fromDate || toDate)) {
    return fail('rolling', 'rolling cannot be combined with from_date/to_date; send one or the other');
  }
  if (rolling || fromDate || toDate) {
    return { window: { rolling: (rolling as RollingWindow) ?? null, fromDate, toDate, timeZone } };
  }
  if (timeZone && !isValidTimeZone(timeZone)) {
    return fail('time_zone', 'time_zone must be an IANA time zone such as Europe/London');
  }
  return { window: null };
}

/**
 * The export's parameters, each at most once; an unknown one is refused rather than ignored (a
 * misspelt filter would silently export everything). Empty values count as absent.
 */
export function parseExportQuery(search: URLSearchParams): ParsedExportQuery {
  const values = new Map<string, string>();
  for (const [name, value] of search) {
    if (!PARAMETERS.has(name)) {
      return fail(name, `unknown parameter; use ${[...PARAMETERS].join(', ')}`);
    }
    if (values.has(name)) return fail(name, `${name} may be given once (lists are comma-separated)`);
    if (value !== '') values.set(name, value);
  }
  const format = values.get('format');
  if (!EXPORT_FORMATS.includes(format as ExportFormat)) {
    return fail('format', `format must be ${EXPORT_FORMATS.join(' or ')}`);
  }
  const agentId = values.get('agent_id') ?? null;
  if (agentId !== null && !isUuid(agentId)) return fail('agent_id', 'agent_id must be a UUID');
  const window = windowOf(values);
  if ('ok' in window) return window;
  return {
    ok: true,
    query: {
      format: format as ExportFormat,
      agentId: agentId?.toLowerCase() ?? null,
      filter: {
        types: list(values.get('types')),
        instruments: list(values.get('instruments')),
        producerIds: list(values.get('producer_ids')),
        // Values outside these unions are refused by resolveFilter, naming the parameter.
        runKinds: list(values.get('run_kinds')) as RunKind[] | null,
        freshness: (values.get('freshness') as Freshness | undefined) ?? null,
        text: values.get('text') ?? null,
        window: window.window,
      },
    },
  };
}

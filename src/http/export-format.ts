// The export's two formats (B12): NDJSON lines of the REST record view, and CSV rows of
// the columns below. Both read a record through toMemoryView, so a field means the same everywhere.
import type { MemoryRecord } from '../records/record-shape.js';
import { toMemoryView } from '../records/record-view.js';
import { csvRecord } from './csv.js';

export type ExportFormat = 'ndjson' | 'csv';

export const EXPORT_FORMATS: readonly ExportFormat[] = ['ndjson', 'csv'];

export const CSV_COLUMNS = [
  'id',
  'created_at',
  'type',
  'scope',
  'instruments',
  'producer',
  'run_id',
  'run_kind',
  'run_status',
  'expires_at',
  'freshness',
  'timeframe',
  'content',
  'metadata',
  'links',
] as const;

/** One record as a CSV row: lists joined by `;`, links as `linkType:targetId`, metadata as JSON, null as empty. */
function csvRow(record: MemoryRecord, now: Date): string {
  const view = toMemoryView(record, now);
  const cells: Record<(typeof CSV_COLUMNS)[number], string | null> = {
    id: view.id,
    created_at: view.created_at,
    type: view.type,
    scope: view.scope,
    instruments: view.instruments.join(';'),
    producer: view.provenance?.producer_name ?? null,
    run_id: view.provenance?.run_id ?? null,
    run_kind: view.provenance?.kind ?? record.runKind,
    run_status: view.provenance?.run_status ?? null,
    expires_at: view.expires_at,
    freshness: view.freshness,
    timeframe: view.timeframe,
    content: view.content,
    metadata: view.metadata === null ? null : JSON.stringify(view.metadata),
    links: view.links.map((link) => `${link.link_type}:${link.target_memory_id}`).join(';'),
  };
  return csvRecord(CSV_COLUMNS.map((column) => cells[column] ?? ''));
}

/** What a format writes before the first record, after each record, and its media type. */
export const FORMATS: Record<
  ExportFormat,
  { mediaType: string; head: string; render(record: MemoryRecord, now: Date): string }
> = {
  ndjson: {
    mediaType: 'application/x-ndjson',
    head: '',
    render: (record, now) => `${JSON.stringify(toMemoryView(record, now))}\n`,
  },
  csv: {
    mediaType: 'text/csv; charset=utf-8',
    head: csvRecord(CSV_COLUMNS),
    render: csvRow,
  },
};

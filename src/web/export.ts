// Export of the shown view (B12): the address of `GET /api/v1/export` for the list's exact
// filter, and the download itself — fetched with the session's token (a plain link cannot carry it) and
// saved under the name the server gives.
import type { MemoryFilter } from './queries.js';

export type ExportFormat = 'ndjson' | 'csv';

/** The export's query string mirrors MemoryFilter (API contract); `agent_id` names the agent. */
export function exportAddress(agentId: string, filter: MemoryFilter, format: ExportFormat): string {
  const params = new URLSearchParams({ format, agent_id: agentId });
  const set = (name: string, value: string | undefined) => {
    if (value) params.set(name, value);
  };
  set('types', filter.types?.join(','));
  set('instruments', filter.instruments?.join(','));
  set('producer_ids', filter.producerIds?.join(','));
  set('run_kinds', filter.runKinds?.join(','));
  set('text', filter.text);
  set('freshness', filter.freshness);
  const window = filter.window;
  if (window) {
    set('rolling', window.rolling);
    set('from_date', window.fromDate);
    set('to_date', window.toDate);
    set('time_zone', window.timeZone);
  }
  return `/api/v1/export?${params.toString()}`;
}

/** The file name of a `Content-Disposition: attachment; filename="…"` header, or `fallback`. */
export function attachmentName(disposition: string | null, fallback: string): string {
  const match = /filename="([^"]+)"/.exec(disposition ?? '');
  return match?.[1] ?? fallback;
}

export class ExportError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'ExportError';
  }
}

/** Downloads the export; `onBytes` follows its progress. Resolves with the file name once saved. */
export async function downloadExport(
  address: string,
  token: string,
  onBytes: (bytes: number) => void,
  signal: AbortSignal,
): Promise<string> {
  const response = await fetch(address, { headers: { authorization: `Bearer ${token}` }, signal });
  if (!response.ok || !response.body) {
    const body = (await response.json().catch(() => null)) as { error?: string } | null;
    throw new ExportError(body?.error ?? `The export failed (HTTP ${response.status}).`, response.status);
  }
  const reader = response.body.getReader();
  const chunks: BlobPart[] = [];
  let bytes = 0;
  for (;;) {
    // A cut connection rejects here: a partial file is never saved.
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    bytes += value.byteLength;
    onBytes(bytes);
  }
  const name = attachmentName(response.headers.get('content-disposition'), 'memories-export');
  const url = URL.createObjectURL(new Blob(chunks, { type: response.headers.get('content-type') ?? '' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  return name;
}

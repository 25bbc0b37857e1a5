// "Export" in the list's head: the list's exact filter as NDJSON or CSV (B12), with progress,
// a cancel, and the reason when it fails.
import { useEffect, useRef, useState } from 'preact/hooks';
import { AuthError } from '../graphql.js';
import { downloadExport, ExportError, exportAddress, type ExportFormat } from '../export.js';
import { formatCount } from '../format.js';
import type { MemoryFilter } from '../queries.js';

type ExportState =
  | { state: 'idle' }
  | { state: 'running'; bytes: number }
  | { state: 'done'; name: string }
  | { state: 'failed'; message: string };

interface ExportMenuProps {
  token: string;
  agentId: string;
  filter: MemoryFilter;
  failed: (error: unknown) => boolean;
}

export function ExportMenu({ token, agentId, filter, failed }: ExportMenuProps) {
  const [status, setStatus] = useState<ExportState>({ state: 'idle' });
  const controller = useRef<AbortController | null>(null);
  useEffect(() => () => controller.current?.abort(), []);

  const start = (format: ExportFormat) => {
    controller.current?.abort();
    const current = new AbortController();
    controller.current = current;
    setStatus({ state: 'running', bytes: 0 });
    downloadExport(
      exportAddress(agentId, filter, format),
      token,
      (bytes) => setStatus({ state: 'running', bytes }),
      current.signal,
    )
      .then((name) => setStatus({ state: 'done', name }))
      .catch((error: unknown) => {
        if (current.signal.aborted) return setStatus({ state: 'idle' });
        if (error instanceof ExportError && (error.status === 401 || error.status === 403)) {
          if (failed(new AuthError(error.message, error.status === 401 ? 'UNAUTHENTICATED' : 'FORBIDDEN')))
            return;
        }
        setStatus({ state: 'failed', message: error instanceof Error ? error.message : String(error) });
      });
  };

  return (
    <div class="export-menu" data-export={status.state}>
      <span class="export-label">Export</span>
      <button
        type="button"
        class="btn btn-secondary btn-small"
        disabled={status.state === 'running'}
        onClick={() => start('ndjson')}
      >
        NDJSON
      </button>
      <button
        type="button"
        class="btn btn-secondary btn-small"
        disabled={status.state === 'running'}
        onClick={() => start('csv')}
      >
        CSV
      </button>
      <span class="export-status" role="status">
        {status.state === 'running' ? `Exporting… ${formatCount(Math.round(status.bytes / 1024))} KB` : null}
        {status.state === 'done' ? `Saved ${status.name}` : null}
        {status.state === 'failed' ? `Export failed: ${status.message}` : null}
      </span>
      {status.state === 'running' ? (
        <button type="button" class="link-button" onClick={() => controller.current?.abort()}>
          Cancel
        </button>
      ) : null}
    </div>
  );
}

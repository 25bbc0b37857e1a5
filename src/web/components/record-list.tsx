// The records column: what is shown (filter summary, resolved window), the list's states (loading, error,
// empty), the records newest first (B4, B5) and "Load older" below them (B4).
import type { ComponentChildren } from 'preact';
import { useCallback, useMemo } from 'preact/hooks';
import { formatCount, formatHours, formatInstant } from '../format.js';
import type { ListState } from '../list-state.js';
import { recordElementId } from '../records.js';
import { RecordCard } from './record-card.js';

/** A live record is marked "New" this long after it arrived. */
const NEW_FOR_MS = 5 * 60_000;

export function ListHead({
  summary,
  total,
  list,
  stale,
  actions,
}: {
  /** Controls for the whole list (export). */
  actions?: ComponentChildren;
  /** The filter in words. */
  summary: string;
  /** How many records match the filter in all (null: not known yet). */
  total: number | null;
  list: ListState;
  stale: boolean;
}) {
  const shown = formatCount(list.edges.length);
  return (
    <div class="list-head">
      <h2>Records</h2>
      <p class="list-summary" data-summary="" data-total={total ?? undefined}>
        {total === null || stale
          ? `${summary} · ${shown} shown`
          : `${summary} · ${shown} of ${formatCount(total)} shown`}
      </p>
      {actions}
      {list.window && !stale ? (
        <p class="window-line" data-window-from={list.window.from} data-window-to={list.window.to}>
          {`From ${formatInstant(list.window.from)} to ${formatInstant(list.window.to)} (${formatHours(
            list.window.from,
            list.window.to,
          )})`}
        </p>
      ) : null}
    </div>
  );
}

export function LoadError({ message, onRetry }: { message: string | null; onRetry: () => void }) {
  return (
    <div class="alert" role="alert">
      <span>{`Could not load records: ${message ?? 'unknown error'}`}</span>
      <button type="button" class="btn btn-secondary" onClick={onRetry}>
        Retry
      </button>
    </div>
  );
}

export function Loading() {
  return (
    <div class="loading" role="status">
      <span class="spinner" aria-hidden="true" />
      Loading records…
    </div>
  );
}

export function NoRecords({
  filtered,
  open,
  onClearAll,
}: {
  filtered: boolean;
  /** New records can still fall into the window (not a range that ended before today). */
  open: boolean;
  onClearAll: () => void;
}) {
  return (
    <div class="empty" role="status">
      <p>{filtered ? 'No records match these filters.' : 'No records yet.'}</p>
      <p class="muted">
        {open
          ? 'New records appear here as soon as they are written.'
          : 'This date range has ended: no new records can fall into it.'}
      </p>
      {filtered ? (
        <button type="button" class="btn btn-secondary" onClick={onClearAll}>
          Clear filters
        </button>
      ) : null}
    </div>
  );
}

export function Records({
  list,
  now,
  arrivals,
}: {
  list: ListState;
  now: number;
  arrivals: ReadonlyMap<string, number>;
}) {
  const shownIds = useMemo(() => new Set(list.edges.map((edge) => edge.node.id)), [list.edges]);
  const jumpTo = useCallback((id: string) => {
    const element = document.getElementById(recordElementId(id));
    element?.scrollIntoView({ block: 'center', behavior: 'smooth' });
    element?.focus({ preventScroll: true });
  }, []);

  return (
    <ol
      class={`records${list.status === 'loading' ? ' records-loading' : ''}`}
      aria-label="Records, newest first"
    >
      {list.edges.map((edge) => (
        <li key={edge.node.id}>
          <RecordCard
            memory={edge.node}
            now={now}
            isNew={(arrivals.get(edge.node.id) ?? -Infinity) > now - NEW_FOR_MS}
            isShown={(id: string) => shownIds.has(id)}
            onJump={jumpTo}
          />
        </li>
      ))}
    </ol>
  );
}

export function ListFoot({ list, onLoadOlder }: { list: ListState; onLoadOlder: () => void }) {
  return (
    <div class="list-foot">
      {list.olderError ? (
        <p class="field-error" role="alert">
          {`Could not load older records: ${list.olderError}`}
        </p>
      ) : null}
      {list.hasNextPage ? (
        <button
          type="button"
          class="btn btn-secondary load-older"
          onClick={onLoadOlder}
          disabled={list.loadingOlder}
        >
          {list.loadingOlder ? 'Loading…' : 'Load older'}
        </button>
      ) : (
        <p class="muted end">No older records.</p>
      )}
    </div>
  );
}

/** B5: live records held back while the operator reads further down or while they flood in. */
export function NewRecordsBar({ count, onShow }: { count: number; onShow: () => void }) {
  return (
    <div class="new-bar">
      <button type="button" class="btn btn-primary" data-pending={count} onClick={onShow}>
        <span aria-hidden="true">↑</span>
        {`${formatCount(count)} new ${count === 1 ? 'record' : 'records'} — show`}
      </button>
    </div>
  );
}

interface ListBodyProps {
  list: ListState;
  now: number;
  arrivals: ReadonlyMap<string, number>;
  /** Anything narrower than every record is selected. */
  filtered: boolean;
  /** New records can still fall into the window. */
  open: boolean;
  actions: { retry: () => void; clearAll: () => void; showPending: () => void; loadOlder: () => void };
}

/** The list's states below its head: error, loading, empty, the "N new" bar, the records, "Load older". */
export function ListBody({ list, now, arrivals, filtered, open, actions }: ListBodyProps) {
  const empty = list.edges.length === 0;
  return (
    <>
      {list.status === 'error' ? <LoadError message={list.error} onRetry={actions.retry} /> : null}
      {list.status === 'loading' && empty ? <Loading /> : null}
      {list.status === 'ready' && empty && list.pending.length === 0 ? (
        <NoRecords filtered={filtered} open={open} onClearAll={actions.clearAll} />
      ) : null}
      {list.pending.length ? (
        <NewRecordsBar count={list.pending.length} onShow={actions.showPending} />
      ) : null}
      {empty ? null : <Records list={list} now={now} arrivals={arrivals} />}
      {list.status === 'ready' && !empty ? <ListFoot list={list} onLoadOlder={actions.loadOlder} /> : null}
    </>
  );
}

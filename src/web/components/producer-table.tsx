// The producer table (B8): each producer's status over the last 24 h — its schedule,
// last run and record, the next boundary, missed cycles, lateness percentiles, records stale on arrival,
// and the failed, cancelled and empty runs (B7).
import { formatInstant, formatRelative } from '../format.js';
import { useNow } from '../hooks/use-now.js';
import type { ProducerHealth } from '../health-queries.js';
import { formatSeconds, needsAttention } from '../health.js';
import { ScrollRegion } from './metadata.js';

/** "9 minutes ago", "in 10 minutes": the table stays narrow; the instant in the page's style on hover. */
function When({ iso, now }: { iso: string | null; now: number }) {
  if (!iso) return <span class="muted">—</span>;
  return (
    <time dateTime={iso} title={`${formatInstant(iso)} (${iso})`}>
      {formatRelative(iso, now)}
    </time>
  );
}

function statusClass(status: ProducerHealth['status']): string {
  if (needsAttention(status)) return 'badge badge-stale';
  if (status === 'HEALTHY') return 'badge badge-fresh';
  return 'badge badge-none';
}

function Row({ health, now }: { health: ProducerHealth; now: number }) {
  const missed = health.cyclesExpected - health.cyclesWithRecord;
  const run = health.lastRun;
  return (
    <tr data-producer={health.producer.name} data-status={health.status}>
      <th scope="row">
        <span class="producer-name">{health.producer.name}</span>
        <span class="muted producer-kind">{health.producer.kind.toLowerCase()}</span>
      </th>
      <td>
        <span class={statusClass(health.status)}>{health.status}</span>
      </td>
      <td>{health.producer.schedule ?? <span class="muted">none</span>}</td>
      <td>
        {run ? (
          <>
            <span class="run-line">
              <span class={`run-status run-${run.status.toLowerCase()}`}>{run.status.toLowerCase()}</span>
              {run.empty ? <span class="muted"> (empty)</span> : null}
            </span>
            <When iso={run.startedAt} now={now} />
          </>
        ) : (
          <span class="muted">—</span>
        )}
      </td>
      <td>
        <When iso={health.lastRecordAt} now={now} />
      </td>
      <td>
        <When iso={health.nextBoundary} now={now} />
      </td>
      <td
        data-missed={missed}
        title={health.missedBoundaries.length ? `Missed: ${health.missedBoundaries.join(', ')}` : undefined}
      >
        {health.cyclesExpected ? `${missed} of ${health.cyclesExpected}` : '—'}
      </td>
      <td class="num">
        {`${formatSeconds(health.latenessP50Seconds)} / ${formatSeconds(health.latenessP95Seconds)} / ${formatSeconds(health.latenessMaxSeconds)}`}
      </td>
      <td class="num">{health.staleOnArrival}</td>
      <td class="num" data-runs={`${health.failedRuns}/${health.cancelledRuns}/${health.emptyRuns}`}>
        {`${health.failedRuns} / ${health.cancelledRuns} / ${health.emptyRuns}`}
      </td>
    </tr>
  );
}

export function ProducerTable({ health }: { health: ProducerHealth[] }) {
  const now = useNow(30_000);
  return (
    <section class="record-section" data-section="producers" aria-labelledby="producers-title">
      <h3 id="producers-title">Producers, last 24 h</h3>
      <p class="muted">
        A scheduled producer is LATE when its last completed cycle has no record (or only a stale one), and
        MISSING when its last two have none. Lateness is how long after its evidence boundary a record was
        written.
      </p>
      {health.length ? (
        <ScrollRegion label="Producers">
          <table class="grid-table producer-table" aria-label="Producers">
            <thead>
              <tr>
                <th scope="col">Producer</th>
                <th scope="col">Status</th>
                <th scope="col">Schedule</th>
                <th scope="col">Last run</th>
                <th scope="col">Last record</th>
                <th scope="col">Next boundary</th>
                <th scope="col">Missed cycles</th>
                <th scope="col">Lateness p50 / p95 / max</th>
                <th scope="col">Stale on arrival</th>
                <th scope="col">Failed / cancelled / empty runs</th>
              </tr>
            </thead>
            <tbody>
              {health.map((row) => (
                <Row key={row.producer.id} health={row} now={now} />
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      ) : (
        <p class="empty">This agent has no producers.</p>
      )}
    </section>
  );
}

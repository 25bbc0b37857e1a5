// The freshness board (B9): for each selected instrument, every (producer, type) group
// as a Trading run would get it now — FRESH with the time left, STALE since its expiry, DISABLED, NONE —
// and the instrument's latest decision with how much of its evidence was fresh when it was written.
// Groups flip to STALE on the page's own clock at their known expiresAt (health.ts, use-flip-clock.ts).
import { formatInstant } from '../format.js';
import type { BoardGroup, BoardInstrument, FreshnessBoard } from '../health-queries.js';
import { formatDuration, groupStateAt, nextFlipAt } from '../health.js';
import { useFlipClock } from '../hooks/use-flip-clock.js';
import { memoryHref } from '../route.js';
import { MemoryLink } from './memory-link.js';

function StateDetail({ group, now }: { group: BoardGroup; now: number }) {
  const state = groupStateAt(group, now);
  switch (state) {
    case 'FRESH':
      return group.expiresAt ? (
        <span>
          {`${formatDuration(Date.parse(group.expiresAt) - now)} left · until `}
          <time dateTime={group.expiresAt} title={group.expiresAt}>
            {formatInstant(group.expiresAt)}
          </time>
        </span>
      ) : (
        <span>never expires</span>
      );
    case 'STALE':
      return group.expiresAt ? (
        <span>
          {'since '}
          <time dateTime={group.expiresAt} title={group.expiresAt}>
            {formatInstant(group.expiresAt)}
          </time>
          {` · ${formatDuration(now - Date.parse(group.expiresAt))} ago`}
        </span>
      ) : (
        <span>stale</span>
      );
    case 'DISABLED':
      return <span>producer disabled</span>;
    case 'NONE':
      return <span>no record yet</span>;
  }
}

function GroupRow({ group, now }: { group: BoardGroup; now: number }) {
  const state = groupStateAt(group, now);
  return (
    <tr data-group={`${group.producer.name}:${group.type}`} data-state={state}>
      <th scope="row">
        <span class="board-producer">{group.producer.name}</span>
        <span class="muted">{` · ${group.type}`}</span>
      </th>
      <td>
        <span class={`badge badge-${state.toLowerCase()}`}>{state}</span>
      </td>
      <td class="board-detail">
        <StateDetail group={group} now={now} />
      </td>
      <td>{group.memoryId ? <MemoryLink id={group.memoryId} /> : null}</td>
    </tr>
  );
}

function LatestDecision({ board }: { board: BoardInstrument }) {
  const decision = board.latestDecision;
  if (!decision) return <p class="muted board-decision">No trading decision yet.</p>;
  const fresh = board.decisionFreshEvidence ?? 0;
  const stale = board.decisionStaleEvidence ?? 0;
  return (
    <p class="board-decision" data-decision={decision.id}>
      <a href={memoryHref(decision.id)} class="memory-link">
        {'Latest decision '}
        <time dateTime={decision.createdAt} title={decision.createdAt}>
          {formatInstant(decision.createdAt)}
        </time>
      </a>
      <span class="muted">{` — ${decision.content}`}</span>
      <span class="evidence" data-evidence={`${fresh}/${stale}`}>
        <span class="badge badge-fresh">{`${fresh} fresh`}</span>
        <span class="badge badge-stale">{`${stale} stale`}</span>
        <span class="sr-only"> evidence when it was written</span>
      </span>
    </p>
  );
}

function InstrumentCard({ board, now }: { board: BoardInstrument; now: number }) {
  const title = `board-${board.instrument}`;
  return (
    <section class="board-card" aria-labelledby={title} data-instrument={board.instrument}>
      <h4 id={title}>{board.instrument}</h4>
      {board.groups.length ? (
        <table class="grid-table board-table" aria-labelledby={title}>
          <thead>
            <tr>
              <th scope="col">Producer · type</th>
              <th scope="col">State</th>
              <th scope="col">Detail</th>
              <th scope="col">Record</th>
            </tr>
          </thead>
          <tbody>
            {board.groups.map((group) => (
              <GroupRow key={`${group.producer.id}:${group.type}`} group={group} now={now} />
            ))}
          </tbody>
        </table>
      ) : (
        <p class="muted">No research for this instrument yet.</p>
      )}
      <LatestDecision board={board} />
    </section>
  );
}

export function FreshnessBoardView({ board }: { board: FreshnessBoard }) {
  const groups = board.instruments.flatMap((instrument) => instrument.groups);
  const now = useFlipClock((at) => nextFlipAt(groups, at));
  return (
    <section class="record-section health-board" data-section="board" aria-labelledby="board-title">
      <h3 id="board-title">Freshness board</h3>
      <p class="muted">
        What a Trading run gets now for each selected instrument, group by group. A fresh group turns stale
        here by itself when its expiry passes.
      </p>
      {board.instruments.length ? (
        <div class="board-grid">
          {board.instruments.map((instrument) => (
            <InstrumentCard key={instrument.instrument} board={instrument} now={now} />
          ))}
        </div>
      ) : (
        <p class="empty">This agent selects no instruments.</p>
      )}
    </section>
  );
}

// The page's top bar: the brand and whose records these are (the admin switches agents here), the
// agent's views, the live-update state with the reconnect countdown (B5), the operator's time zone (B3) and sign-out.
import type { ComponentChildren } from 'preact';
import { useNow } from '../hooks/use-now.js';
import { secondsLeft, type LiveStatus } from '../live.js';
import type { AgentSummary } from '../queries.js';

/** The countdown's clock; without a retry pending the bar needs no clock. */
const COUNTDOWN_TICK_MS = 250;
const IDLE_TICK_MS = 60_000;

/** Short and stable, for screen readers: the countdown itself is not announced every second. */
function liveState(status: LiveStatus): string {
  switch (status.state) {
    case 'live':
      return 'Live';
    case 'connecting':
      return 'Connecting…';
    case 'reconnecting':
      return 'Reconnecting';
    case 'unavailable':
      return 'Live updates paused';
  }
}

function liveText(status: LiveStatus, now: number): string {
  if (status.state !== 'reconnecting') return liveState(status);
  const seconds = secondsLeft(status.retryAt, now);
  return seconds > 0 ? `Reconnecting in ${seconds}s` : 'Reconnecting…';
}

export interface LiveControls {
  status: LiveStatus;
  onRetryNow: () => void;
}

function LiveIndicator({ status, onRetryNow }: LiveControls) {
  const retrying = 'retryAt' in status;
  const now = useNow(retrying ? COUNTDOWN_TICK_MS : IDLE_TICK_MS);
  const text = liveText(status, now);
  const title =
    status.state === 'unavailable'
      ? `${status.message} (retrying in ${secondsLeft(status.retryAt, now)}s)`
      : text;
  return (
    <span class="live-group">
      <span class={`live live-${status.state}`} title={title} data-live={status.state}>
        <span class="live-dot" aria-hidden="true" />
        <span class="sr-only" role="status">
          {liveState(status)}
        </span>
        <span aria-hidden="true" data-live-text="">
          {text}
        </span>
      </span>
      {retrying ? (
        <button type="button" class="btn btn-quiet btn-small" onClick={onRetryNow}>
          Retry now
        </button>
      ) : null}
    </span>
  );
}

export interface Who {
  agent: AgentSummary;
  /** The admin token's agents (it may switch); null for an operator token (its one agent). */
  agents: AgentSummary[] | null;
  onChoose: (agentId: string) => void;
}

function AgentName({ agent, agents, onChoose }: Who) {
  if (!agents) {
    return (
      <span class="agent-name" data-agent-id={agent.id} title={agent.id}>
        {agent.name}
      </span>
    );
  }
  return (
    <label class="agent-switch">
      <span class="sr-only">Agent</span>
      <select
        value={agent.id}
        data-agent-id={agent.id}
        onChange={(event) => onChoose(event.currentTarget.value)}
      >
        {agents.map((option) => (
          <option key={option.id} value={option.id}>
            {option.name}
          </option>
        ))}
      </select>
      <span class="badge badge-admin" title="Signed in with the admin token">
        admin
      </span>
    </label>
  );
}

interface TopBarProps {
  onSignOut: () => void;
  who?: Who;
  /** The agent's views (Memories, Context). */
  tabs?: ComponentChildren;
  live?: LiveControls;
  timeZone?: string;
}

export function TopBar({ onSignOut, who, tabs, live, timeZone }: TopBarProps) {
  return (
    <header class="topbar">
      <div class="brand">
        <span class="brand-mark" aria-hidden="true" />
        <h1>Memories</h1>
        {who ? <AgentName {...who} /> : null}
      </div>
      {tabs}
      <div class="topbar-tools">
        {live ? <LiveIndicator {...live} /> : null}
        {timeZone ? (
          <span class="zone" title="Times are shown in this time zone">
            {timeZone}
          </span>
        ) : null}
        <button type="button" class="btn btn-quiet" onClick={onSignOut}>
          Sign out
        </button>
      </div>
    </header>
  );
}

// The page's top bar: the brand, the live-update state (B5), the operator's time zone (B3) and sign-out.
import type { LiveStatus } from '../live.js';

function liveText(status: LiveStatus): string {
  switch (status.state) {
    case 'live':
      return 'Live';
    case 'connecting':
      return 'Connecting…';
    case 'reconnecting':
      return `Reconnecting in ${status.inSeconds}s`;
    case 'unavailable':
      return 'Live updates paused';
  }
}

function LiveIndicator({ status }: { status: LiveStatus }) {
  const text = liveText(status);
  return (
    <span
      class={`live live-${status.state}`}
      role="status"
      title={status.state === 'unavailable' ? `${status.message} (retrying in ${status.inSeconds}s)` : text}
      data-live={status.state}
    >
      <span class="live-dot" aria-hidden="true" />
      {text}
    </span>
  );
}

export function TopBar({
  live,
  timeZone,
  onSignOut,
}: {
  live: LiveStatus;
  timeZone: string;
  onSignOut: () => void;
}) {
  return (
    <header class="topbar">
      <div class="brand">
        <span class="brand-mark" aria-hidden="true" />
        <h1>Memories</h1>
      </div>
      <div class="topbar-tools">
        <LiveIndicator status={live} />
        <span class="zone" title="Times are shown in this time zone">
          {timeZone}
        </span>
        <button type="button" class="btn btn-quiet" onClick={onSignOut}>
          Sign out
        </button>
      </div>
    </header>
  );
}

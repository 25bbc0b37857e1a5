// The desk's view (B8, B9) without a browser: the header badge's words, which tab opens first, the
// board as of the page's clock (a FRESH group turns STALE at its known expiresAt, B9) and when the next
// such flip is due, so one timer replaces a request per record.

export type ProducerHealthStatus = 'HEALTHY' | 'LATE' | 'MISSING' | 'DISABLED' | 'UNSCHEDULED';
export type BoardState = 'FRESH' | 'STALE' | 'DISABLED' | 'NONE';

/** A producer needs the desk's attention: its last completed cycle (LATE) or last two (MISSING) missed (B8). */
export function needsAttention(status: ProducerHealthStatus): boolean {
  return status === 'LATE' || status === 'MISSING';
}

/** "2 producers late", "1 producer missing", "3 producers late or missing"; null when all are well. */
export function healthBadgeText(statuses: readonly ProducerHealthStatus[]): string | null {
  const late = statuses.filter((status) => status === 'LATE').length;
  const missing = statuses.filter((status) => status === 'MISSING').length;
  const total = late + missing;
  if (total === 0) return null;
  const noun = total === 1 ? 'producer' : 'producers';
  const what = missing === 0 ? 'late' : late === 0 ? 'missing' : 'late or missing';
  return `${total} ${noun} ${what}`;
}

/**
 * The view a freshly opened page shows: the one its address names; an address naming none (the bare
 * page) opens the Health tab while a producer is LATE or MISSING, the Memories list otherwise.
 */
export function defaultTab(
  addressNamesView: boolean,
  statuses: readonly ProducerHealthStatus[],
): 'health' | 'list' | null {
  if (addressNamesView) return null;
  return statuses.some(needsAttention) ? 'health' : 'list';
}

export interface BoardGroupLike {
  state: BoardState;
  expiresAt: string | null;
}

/** A group as of `now`: FRESH turns STALE once its expiresAt has passed (C2's `expiresAt ≤ at`). */
export function groupStateAt(group: BoardGroupLike, now: number): BoardState {
  if (group.state === 'FRESH' && group.expiresAt !== null && Date.parse(group.expiresAt) <= now) {
    return 'STALE';
  }
  return group.state;
}

/**
 * When the board shown changes next by itself: the earliest expiresAt after `now` of a FRESH group,
 * as epoch ms; null when nothing will flip (nothing fresh, or fresh without expiry).
 */
export function nextFlipAt(groups: readonly BoardGroupLike[], now: number): number | null {
  let next: number | null = null;
  for (const group of groups) {
    if (group.state !== 'FRESH' || group.expiresAt === null) continue;
    const at = Date.parse(group.expiresAt);
    if (at > now && (next === null || at < next)) next = at;
  }
  return next;
}

/** Browsers run a timeout longer than 2^31−1 ms at once: longer waits are cut to that and re-armed. */
const MAX_TIMEOUT_MS = 2_147_483_647;

/** The delay of the timer that wakes the page for the flip at `at` (a little after it, never negative). */
export function flipDelay(at: number, now: number): number {
  return Math.min(MAX_TIMEOUT_MS, Math.max(0, at - now) + 50);
}

/**
 * Live refreshes of the board, health and timeline follow memoryAdded and runChanged, but at most once
 * per `minGapMs`: returns when the refresh asked for at `now` may run, given the last one's start.
 */
export function refreshAt(lastRefresh: number | null, now: number, minGapMs = 30_000): number {
  if (lastRefresh === null) return now;
  return Math.max(now, lastRefresh + minGapMs);
}

const MINUTE = 60_000;

/** "12 min", "2 h 5 min", "3 d 4 h": a duration as the board says it (rounded down to the minute). */
export function formatDuration(ms: number): string {
  const minutes = Math.max(0, Math.floor(ms / MINUTE));
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
  const days = Math.floor(hours / 24);
  return hours % 24 ? `${days} d ${hours % 24} h` : `${days} d`;
}

/** Seconds of lateness as the producer table shows them: "45 s", "3 min", "2 h 5 min"; null ⇒ "—". */
export function formatSeconds(seconds: number | null): string {
  if (seconds === null) return '—';
  if (seconds < 60) return `${Math.round(seconds)} s`;
  return formatDuration(seconds * 1000);
}

const NOT_IN_CONTEXT: Record<string, string> = {
  other_instrument: 'about another instrument',
  not_research: 'not research Trading is given',
  superseded: 'superseded by a newer record of its group',
  stale: 'stale or disabled then',
  correction_original: 'corrected by a fresh correction',
};

/** B10: why a considered record was not in the decision instrument's context, in words (unknown codes as sent). */
export function notInContextText(reason: string | null): string {
  if (reason === null) return 'not in context';
  return `not in context: ${NOT_IN_CONTEXT[reason] ?? reason.replaceAll('_', ' ')}`;
}

// Producer health (B8): a scheduled producer's cycles (its schedule's UTC boundaries), which of them
// were missed, lateness and stale-on-arrival, and the status the desk shows — pure, no I/O.
import { scheduleMs, type Schedule } from './schedule.js';

export type ProducerHealthStatus = 'HEALTHY' | 'LATE' | 'MISSING' | 'DISABLED' | 'UNSCHEDULED';

/** B8: at most this many missed boundaries are listed (newest first). */
export const MAX_MISSED_BOUNDARIES = 100;
/** A window may hold at most this many cycles of one producer (1m: ~13.9 days; 1h: ~2.3 years). */
export const MAX_HEALTH_CYCLES = 20_000;

/** A stretch of time during which the producer expected cycles on `schedule`: boundaries b with from <= b < to. */
export interface ScheduleSegment {
  schedule: Schedule;
  from: Date;
  /** null: still going on. */
  to: Date | null;
}

/** What the records of one cycle (one evidence boundary) say. */
export interface CycleOutcome {
  /** At least one record of the cycle was fresh when stored (X4: a late one may be stale on arrival). */
  freshOnArrival: boolean;
}

/** B8: lateness of a record is createdAt − evidenceBoundary of its run, in seconds. */
export function latenessSeconds(createdAt: Date, evidenceBoundary: Date): number {
  return (createdAt.getTime() - evidenceBoundary.getTime()) / 1000;
}

/** B8: stale on arrival means createdAt ≥ expiresAt (a record without expiry never is). */
export function isStaleOnArrival(createdAt: Date, expiresAt: Date | null): boolean {
  return expiresAt !== null && createdAt.getTime() >= expiresAt.getTime();
}

/**
 * The periods in which a producer expected cycles: from its creation, while enabled (its toggle
 * history, oldest first), on its schedule. A boundary counts when the producer was enabled at it.
 */
export function enabledSegments(input: {
  schedule: Schedule;
  createdAt: Date;
  /** Every enable/disable (creation included), oldest first. */
  changes: readonly { enabled: boolean; at: Date }[];
}): ScheduleSegment[] {
  const segments: ScheduleSegment[] = [];
  let openedAt: Date | null = null;
  for (const change of input.changes) {
    if (change.at.getTime() < input.createdAt.getTime()) continue;
    if (change.enabled && openedAt === null) openedAt = change.at;
    if (!change.enabled && openedAt !== null) {
      segments.push({ schedule: input.schedule, from: openedAt, to: change.at });
      openedAt = null;
    }
  }
  // No history (legacy rows): enabled since creation.
  if (input.changes.length === 0) openedAt = input.createdAt;
  if (openedAt !== null) segments.push({ schedule: input.schedule, from: openedAt, to: null });
  return segments;
}

const ceilTo = (ms: number, step: number) => Math.ceil(ms / step) * step;

/** Boundaries of one segment inside [from, to) that are completed at `now` (b + interval <= now), as a step range. */
function completedRange(segment: ScheduleSegment, window: { from: Date; to: Date }, now: Date) {
  const step = scheduleMs(segment.schedule);
  const start = ceilTo(Math.max(segment.from.getTime(), window.from.getTime()), step);
  // Exclusive upper bound: the window's and the segment's end, and completion at now (b <= now − step).
  const ends = [window.to.getTime(), now.getTime() - step + 1];
  if (segment.to !== null) ends.push(segment.to.getTime());
  const end = Math.min(...ends);
  const count = end > start ? Math.floor((end - 1 - start) / step) + 1 : 0;
  return { start, step, count };
}

/** B8: how many completed cycles the segments hold in the window (counted, not listed). */
export function countCycles(
  segments: readonly ScheduleSegment[],
  window: { from: Date; to: Date },
  now: Date,
): number {
  return segments.reduce((sum, segment) => sum + completedRange(segment, window, now).count, 0);
}

/** Completed cycle boundaries (epoch ms), newest first, at most `limit`. */
export function completedBoundariesNewestFirst(
  segments: readonly ScheduleSegment[],
  window: { from: Date; to: Date },
  now: Date,
  limit: number,
): number[] {
  const all: number[] = [];
  for (const segment of segments) {
    const { start, step, count } = completedRange(segment, window, now);
    for (let i = count - 1; i >= 0 && count - 1 - i < limit; i--) all.push(start + i * step);
  }
  return [...new Set(all)].sort((a, b) => b - a).slice(0, limit);
}

/** The next boundary strictly after now. */
export function nextBoundary(schedule: Schedule, now: Date): Date {
  const step = scheduleMs(schedule);
  return new Date(Math.floor(now.getTime() / step) * step + step);
}

export interface HealthDecision {
  status: ProducerHealthStatus;
  cyclesExpected: number;
  cyclesWithRecord: number;
  /** Newest first, at most MAX_MISSED_BOUNDARIES. */
  missedBoundaries: Date[];
  nextBoundary: Date | null;
}

/**
 * B8 for one producer: cycles in the window and the status at now — DISABLED (disabled now),
 * UNSCHEDULED (no schedule), MISSING (the last two completed cycles both missed), LATE (the last
 * completed cycle missed, or no record of it fresh on arrival), else HEALTHY. `cycles` holds the
 * boundaries (epoch ms) that have records, in the window and among the last completed ones.
 */
export function decideHealth(input: {
  schedule: Schedule | null;
  enabledNow: boolean;
  segments: readonly ScheduleSegment[];
  window: { from: Date; to: Date };
  now: Date;
  cycles: ReadonlyMap<number, CycleOutcome>;
}): HealthDecision {
  const { schedule, segments, window, now, cycles } = input;
  if (schedule === null) {
    return {
      status: 'UNSCHEDULED',
      cyclesExpected: 0,
      cyclesWithRecord: 0,
      missedBoundaries: [],
      nextBoundary: null,
    };
  }
  const expected = countCycles(segments, window, now);
  const inWindow = completedBoundariesNewestFirst(segments, window, now, expected);
  const withRecord = inWindow.filter((b) => cycles.has(b)).length;
  const missed = inWindow.filter((b) => !cycles.has(b)).slice(0, MAX_MISSED_BOUNDARIES);
  // Status looks at the last two completed cycles at now, whatever window is shown.
  const [last, previous] = statusBoundaries(segments, now);
  let status: ProducerHealthStatus = 'HEALTHY';
  if (!input.enabledNow) status = 'DISABLED';
  else if (last !== undefined && !cycles.has(last) && previous !== undefined && !cycles.has(previous))
    status = 'MISSING';
  else if (last !== undefined && !(cycles.get(last)?.freshOnArrival ?? false)) status = 'LATE';
  return {
    status,
    cyclesExpected: expected,
    cyclesWithRecord: withRecord,
    missedBoundaries: missed.map((b) => new Date(b)),
    nextBoundary: input.enabledNow ? nextBoundary(schedule, now) : null,
  };
}

/** B8: the last two completed cycles at now (newest first): the status reads their records. */
export function statusBoundaries(segments: readonly ScheduleSegment[], now: Date): number[] {
  return completedBoundariesNewestFirst(segments, { from: new Date(0), to: now }, now, 2);
}

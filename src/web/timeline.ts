// The freshness timeline's geometry (B9), without a browser: a time scale over the span in
// the browser's own zone (d3-scale / d3-time count local hours and days, so ticks follow DST), one lane
// per (producer, type) with a bar for each interval its then-latest record was fresh, the gaps between
// them, and the trading decisions as markers. The SVG (components/freshness-timeline.tsx) only draws this.
import { scaleTime } from 'd3-scale';
import { timeDay, timeHour } from 'd3-time';

export type TimelineSpan = '6h' | '24h' | '7d';
export const TIMELINE_SPANS: readonly TimelineSpan[] = ['6h', '24h', '7d'];

const HOUR = 3_600_000;
const SPAN_MS: Record<TimelineSpan, number> = { '6h': 6 * HOUR, '24h': 24 * HOUR, '7d': 7 * 24 * HOUR };

export function isTimelineSpan(value: unknown): value is TimelineSpan {
  return typeof value === 'string' && (TIMELINE_SPANS as readonly string[]).includes(value);
}

/** The span ending at `now`, as the request's `from` / `to`. */
export function spanWindow(span: TimelineSpan, now: number): { from: number; to: number } {
  return { from: now - SPAN_MS[span], to: now };
}

export interface IntervalInput {
  from: string;
  to: string;
  memoryId: string;
  corrected: boolean;
}

export interface LaneInput {
  key: string;
  producerName: string;
  type: string;
  intervals: readonly IntervalInput[];
}

export interface DecisionInput {
  id: string;
  createdAt: string;
  content: string;
}

export interface Bar {
  x: number;
  width: number;
  from: number;
  to: number;
  memoryId: string;
  corrected: boolean;
}

export interface Gap {
  from: number;
  to: number;
}

export interface LaneGeometry {
  key: string;
  label: string;
  y: number;
  bars: Bar[];
  gaps: Gap[];
  /** Of the span, how long some record of the lane was fresh. */
  freshMs: number;
}

export interface Tick {
  x: number;
  at: number;
  label: string;
  /** A local midnight: the label is the date. */
  day: boolean;
}

export interface Marker {
  x: number;
  at: number;
  id: string;
  content: string;
}

export interface TimelineGeometry {
  width: number;
  /** The span's length in ms. */
  span: number;
  height: number;
  ticks: Tick[];
  lanes: LaneGeometry[];
  markers: Marker[];
}

export interface Layout {
  width: number;
  laneHeight: number;
  /** Above the lanes: the decision markers. */
  markerRow: number;
  /** Below the lanes: the tick labels. */
  axisRow: number;
}

/** The span's ticks: hours for 6 h (every 1 or 2) and 24 h (every 3 or 6), days for 7 d; wider ⇒ denser. */
function tickInterval(spanMs: number, width: number) {
  const roomFor = Math.max(2, Math.floor(width / 70));
  if (spanMs <= 6 * HOUR) return timeHour.every(6 / roomFor <= 1 ? 1 : 2)!;
  if (spanMs <= 24 * HOUR) return timeHour.every(24 / roomFor <= 3 ? 3 : 6)!;
  return timeDay.every(7 / roomFor <= 1 ? 1 : 2)!;
}

const hourFormat = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const dayFormat = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' });

function isLocalMidnight(date: Date): boolean {
  return date.getHours() === 0 && date.getMinutes() === 0;
}

/** Intervals clipped to the span, in order, overlapping ones kept apart (each is its own record). */
function barsOf(lane: LaneInput, from: number, to: number, x: (at: number) => number): Bar[] {
  const bars: Bar[] = [];
  for (const interval of lane.intervals) {
    const start = Math.max(from, Date.parse(interval.from));
    const end = Math.min(to, Date.parse(interval.to));
    if (!(end > start)) continue;
    const left = x(start);
    bars.push({
      x: left,
      // A fresh minute in a week is still visible.
      width: Math.max(1, x(end) - left),
      from: start,
      to: end,
      memoryId: interval.memoryId,
      corrected: interval.corrected,
    });
  }
  return bars.sort((a, b) => a.from - b.from);
}

/** The parts of [from, to) no bar covers: the times the lane's latest record was stale or absent. */
export function gapsOf(bars: readonly Pick<Bar, 'from' | 'to'>[], from: number, to: number): Gap[] {
  const gaps: Gap[] = [];
  let covered = from;
  for (const bar of [...bars].sort((a, b) => a.from - b.from)) {
    if (bar.from > covered) gaps.push({ from: covered, to: bar.from });
    covered = Math.max(covered, bar.to);
  }
  if (covered < to) gaps.push({ from: covered, to });
  return gaps;
}

export function timelineGeometry(
  window: { from: number; to: number },
  lanes: readonly LaneInput[],
  decisions: readonly DecisionInput[],
  layout: Layout,
): TimelineGeometry {
  const { from, to } = window;
  const scale = scaleTime<number>()
    .domain([new Date(from), new Date(to)])
    .range([0, layout.width]);
  const x = (at: number) => scale(new Date(at));
  const ticks = scale.ticks(tickInterval(to - from, layout.width)).map((date): Tick => {
    const day = isLocalMidnight(date);
    const label = day || to - from > 24 * HOUR ? dayFormat.format(date) : hourFormat.format(date);
    return { x: x(date.getTime()), at: date.getTime(), label, day };
  });
  const laneGeometry = lanes.map((lane, index): LaneGeometry => {
    const bars = barsOf(lane, from, to, x);
    const gaps = gapsOf(bars, from, to);
    const gapMs = gaps.reduce((sum, gap) => sum + gap.to - gap.from, 0);
    return {
      key: lane.key,
      label: `${lane.producerName} · ${lane.type}`,
      y: layout.markerRow + index * layout.laneHeight,
      bars,
      gaps,
      freshMs: to - from - gapMs,
    };
  });
  const markers = decisions
    .map((decision) => ({ ...decision, at: Date.parse(decision.createdAt) }))
    .filter((decision) => decision.at >= from && decision.at <= to)
    .sort((a, b) => a.at - b.at)
    .map((decision): Marker => ({
      x: x(decision.at),
      at: decision.at,
      id: decision.id,
      content: decision.content,
    }));
  return {
    width: layout.width,
    span: to - from,
    height: layout.markerRow + lanes.length * layout.laneHeight + layout.axisRow,
    ticks,
    lanes: laneGeometry,
    markers,
  };
}

const timeFormat = new Intl.DateTimeFormat(undefined, {
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
});

/** A lane's text alternative: how much of the span was fresh, and each interval and gap in words. */
export function laneDescription(
  lane: LaneGeometry,
  spanMs: number,
  formatMs: (ms: number) => string,
): string {
  const corrected = lane.bars.filter((bar) => bar.corrected).length;
  const parts = [
    `${lane.label}: fresh ${formatMs(lane.freshMs)} of ${formatMs(spanMs)}`,
    `${lane.bars.length} fresh ${lane.bars.length === 1 ? 'interval' : 'intervals'}`,
    `${lane.gaps.length} ${lane.gaps.length === 1 ? 'gap' : 'gaps'}`,
  ];
  if (corrected) parts.push(`${corrected} corrected`);
  return `${parts.join(', ')}.`;
}

/** "Mar 8, 01:00 AM – 03:15 AM" for one bar or gap. */
export function rangeText(from: number, to: number): string {
  return `${timeFormat.format(new Date(from))} – ${timeFormat.format(new Date(to))}`;
}

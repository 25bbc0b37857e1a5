// The freshness timeline (B9): for one instrument over 6 h, 24 h or 7 d, one lane per
// (producer, type) with a bar for each interval its then-latest record was fresh (gaps stay empty,
// corrected records are hatched), and the trading decisions as markers that open their audit. SVG drawn
// from timeline.ts's geometry in the browser's zone; every marker is a link with a text label, every
// lane has a text alternative, and the same facts are a table one click away.
import { useEffect, useState } from 'preact/hooks';
import { formatInstant } from '../format.js';
import type { GraphQLClient } from '../graphql.js';
import { TIMELINE_QUERY, type TimelineResult } from '../health-queries.js';
import { formatDuration } from '../health.js';
import { useQuery } from '../hooks/use-query.js';
import { memoryHref } from '../route.js';
import {
  laneDescription,
  rangeText,
  spanWindow,
  timelineGeometry,
  TIMELINE_SPANS,
  type TimelineGeometry,
  type TimelineSpan,
} from '../timeline.js';
import { MemoryLink } from './memory-link.js';
import { ViewError, ViewLoading } from './view-states.js';

const LAYOUT = { laneHeight: 38, markerRow: 26, axisRow: 24 };
const LABEL_Y = 13;
const BAR_Y = 17;
const BAR_HEIGHT = 14;
const SPAN_LABEL: Record<TimelineSpan, string> = { '6h': '6 h', '24h': '24 h', '7d': '7 d' };

/** The width the SVG has, followed as the window (or a phone's orientation) changes. */
function useWidth(): [(element: HTMLDivElement | null) => void, number] {
  const [element, setElement] = useState<HTMLDivElement | null>(null);
  const [width, setWidth] = useState(0);
  useEffect(() => {
    if (!element) return;
    const measure = () => setWidth(Math.floor(element.clientWidth));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, [element]);
  return [setElement, width];
}

function Lanes({ geometry }: { geometry: TimelineGeometry }) {
  const { width, lanes } = geometry;
  return (
    <>
      {lanes.map((lane) => (
        <g
          key={lane.key}
          class="tl-lane"
          role="img"
          aria-label={laneDescription(lane, geometry.span, formatDuration)}
          data-lane={lane.label}
        >
          <text x={2} y={lane.y + LABEL_Y} class="tl-label" aria-hidden="true">
            {lane.label}
          </text>
          <rect x={0} y={lane.y + BAR_Y} width={width} height={BAR_HEIGHT} class="tl-track" />
          {lane.bars.map((bar) => (
            <rect
              key={`${bar.memoryId}:${bar.from}`}
              x={bar.x}
              y={lane.y + BAR_Y}
              width={bar.width}
              height={BAR_HEIGHT}
              class={bar.corrected ? 'tl-bar tl-bar-corrected' : 'tl-bar'}
              data-memory-id={bar.memoryId}
              data-corrected={String(bar.corrected)}
            >
              <title>{`${bar.corrected ? 'Fresh (corrected later)' : 'Fresh'}: ${rangeText(bar.from, bar.to)}`}</title>
            </rect>
          ))}
        </g>
      ))}
    </>
  );
}

function Markers({ geometry }: { geometry: TimelineGeometry }) {
  const { markers, lanes } = geometry;
  const lanesBottom = LAYOUT.markerRow + lanes.length * LAYOUT.laneHeight;
  return (
    <g class="tl-markers" aria-label="Trading decisions">
      {markers.map((marker) => (
        <a
          key={marker.id}
          href={memoryHref(marker.id)}
          class="tl-marker"
          aria-label={`Decision at ${formatInstant(new Date(marker.at).toISOString())}: ${marker.content}`}
          data-decision={marker.id}
        >
          <title>{`Decision at ${formatInstant(new Date(marker.at).toISOString())}`}</title>
          <line
            x1={marker.x}
            x2={marker.x}
            y1={LAYOUT.markerRow - 2}
            y2={lanesBottom}
            class="tl-marker-line"
          />
          <path d={`M ${marker.x} ${LAYOUT.markerRow - 20} l 7 8 l -7 8 l -7 -8 z`} class="tl-marker-head" />
        </a>
      ))}
    </g>
  );
}

function TimelineSvg({ geometry, label }: { geometry: TimelineGeometry; label: string }) {
  const { width, height, ticks, lanes } = geometry;
  const lanesBottom = LAYOUT.markerRow + lanes.length * LAYOUT.laneHeight;
  return (
    <svg
      class="timeline-svg"
      width={width}
      height={height}
      viewBox={`0 0 ${width} ${height}`}
      role="group"
      aria-label={label}
    >
      <defs>
        <pattern
          id="tl-hatch"
          width="6"
          height="6"
          patternUnits="userSpaceOnUse"
          patternTransform="rotate(45)"
        >
          <rect width="6" height="6" class="tl-hatch-bg" />
          <line x1="0" y1="0" x2="0" y2="6" class="tl-hatch-line" />
        </pattern>
      </defs>
      <g class="tl-grid" aria-hidden="true">
        {ticks.map((tick) => (
          <line
            key={tick.at}
            x1={tick.x}
            x2={tick.x}
            y1={LAYOUT.markerRow - 4}
            y2={lanesBottom}
            class={tick.day ? 'tl-tick tl-tick-day' : 'tl-tick'}
          />
        ))}
      </g>
      <Lanes geometry={geometry} />
      <Markers geometry={geometry} />
      <g class="tl-axis" aria-hidden="true">
        {ticks.map((tick, index) => (
          <text
            key={tick.at}
            x={tick.x}
            y={lanesBottom + 16}
            class={tick.day ? 'tl-axis-label tl-axis-day' : 'tl-axis-label'}
            text-anchor={index === 0 && tick.x < 30 ? 'start' : tick.x > width - 30 ? 'end' : 'middle'}
          >
            {tick.label}
          </text>
        ))}
      </g>
    </svg>
  );
}

/** The same facts as text: each lane's fresh intervals and gaps, each decision. */
function TimelineTable({ geometry }: { geometry: TimelineGeometry }) {
  return (
    <details class="timeline-text">
      <summary>The timeline as text</summary>
      {geometry.lanes.map((lane) => (
        <section key={lane.key} aria-label={lane.label}>
          <h5>{lane.label}</h5>
          <ul>
            {lane.bars.map((bar) => (
              <li key={`${bar.memoryId}:${bar.from}`}>
                {`Fresh ${rangeText(bar.from, bar.to)}${bar.corrected ? ' (corrected)' : ''} `}
                <MemoryLink id={bar.memoryId} />
              </li>
            ))}
            {lane.gaps.map((gap) => (
              <li key={`gap:${gap.from}`} class="muted">{`Gap ${rangeText(gap.from, gap.to)}`}</li>
            ))}
          </ul>
        </section>
      ))}
    </details>
  );
}

interface TimelineProps {
  client: GraphQLClient;
  agentId: string;
  instrument: string;
  span: TimelineSpan;
  /** When the board was last loaded: the span ends there, so a live refresh moves the timeline too. */
  endsAt: number;
  failed: (error: unknown) => boolean;
}

function TimelineBody({ client, agentId, instrument, span, endsAt, failed }: TimelineProps) {
  const window = spanWindow(span, endsAt);
  const variables = {
    agentId,
    instrument,
    from: new Date(window.from).toISOString(),
    to: new Date(window.to).toISOString(),
  };
  const { state, retry } = useQuery<TimelineResult>(client, TIMELINE_QUERY, variables, failed);
  const [measure, width] = useWidth();
  const timeline = state.data?.freshnessTimeline;
  let body;
  if (state.status === 'error')
    body = <ViewError what="the timeline" message={state.message} onRetry={retry} />;
  else if (!timeline) body = <ViewLoading text="Loading the timeline…" />;
  else if (width > 0) {
    const lanes = timeline.lanes.map((lane) => ({
      key: `${lane.producer.id}:${lane.type}`,
      producerName: lane.producer.name,
      type: lane.type,
      intervals: lane.intervals,
    }));
    const geometry = timelineGeometry(window, lanes, timeline.decisions, { ...LAYOUT, width });
    const label = `Freshness of ${instrument} over the last ${SPAN_LABEL[span]}: ${lanes.length} lanes, ${geometry.markers.length} decisions`;
    body = (
      <>
        {lanes.length ? null : <p class="muted">No research for {instrument} in this span.</p>}
        <TimelineSvg geometry={geometry} label={label} />
        <TimelineTable geometry={geometry} />
      </>
    );
  }
  return (
    <div
      class="timeline-body"
      ref={measure}
      aria-busy={state.status === 'loading'}
      data-timeline={instrument}
    >
      {body}
    </div>
  );
}

interface TimelineSectionProps extends TimelineProps {
  instruments: string[];
  onChange: (next: { instrument?: string; span?: TimelineSpan }) => void;
}

export function TimelineSection(props: TimelineSectionProps) {
  const { instruments, instrument, span, onChange } = props;
  return (
    <section class="record-section health-timeline" data-section="timeline" aria-labelledby="timeline-title">
      <h3 id="timeline-title">Timeline</h3>
      <div class="timeline-controls">
        <label class="instrument-choice">
          <span>Instrument</span>
          <select
            value={instrument}
            onChange={(event) => onChange({ instrument: event.currentTarget.value })}
          >
            {instruments.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <fieldset class="segmented segmented-3 timeline-spans">
          <legend class="sr-only">Span</legend>
          {TIMELINE_SPANS.map((option) => (
            <label key={option} class={option === span ? 'segment segment-on' : 'segment'}>
              <input
                type="radio"
                name="timeline-span"
                value={option}
                checked={option === span}
                onChange={() => onChange({ span: option })}
              />
              {`Last ${SPAN_LABEL[option]}`}
            </label>
          ))}
        </fieldset>
      </div>
      <p class="muted timeline-legend">
        <span class="legend-fresh" aria-hidden="true" /> fresh{' '}
        <span class="legend-corrected" aria-hidden="true" /> fresh, corrected later{' '}
        <span class="legend-decision" aria-hidden="true">
          ◆
        </span>{' '}
        trading decision (opens its audit). Gaps are times a Trading run got no fresh record of that lane.
        Times in your zone.
      </p>
      <TimelineBody {...props} />
    </section>
  );
}

// The Context tab's "as of" instant typed as a local date and time in the browser's zone (C9), with
// daylight-saving days handled as Temporal's `compatible` disambiguation does: a time that occurs twice
// (clocks turned back) has two instants, the earlier first; a time that does not occur (clocks moved
// forward) is read with the offset before the change, i.e. as the later wall time.

const LOCAL_INPUT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?$/;
const DAY_MS = 86_400_000;

interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const formats = new Map<string, Intl.DateTimeFormat>();

function formatFor(timeZone: string): Intl.DateTimeFormat {
  let format = formats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formats.set(timeZone, format);
  }
  return format;
}

/** The wall clock of an instant in `timeZone`. */
function wallClockAt(ms: number, timeZone: string): WallClock {
  const fields: Record<string, number> = {};
  for (const part of formatFor(timeZone).formatToParts(new Date(ms))) {
    if (part.type !== 'literal') fields[part.type] = Number(part.value);
  }
  return {
    year: fields.year!,
    month: fields.month!,
    day: fields.day!,
    hour: fields.hour!,
    minute: fields.minute!,
    second: fields.second!,
  };
}

const asUtc = (wall: WallClock) =>
  Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);

/** The zone's offset from UTC at an instant (ms; local = UTC + offset). */
function offsetAt(ms: number, timeZone: string): number {
  const whole = Math.floor(ms / 1000) * 1000;
  return asUtc(wallClockAt(whole, timeZone)) - whole;
}

export type LocalTimeReading =
  | { kind: 'invalid' }
  /** `instants`: one, or two (earlier first) when the time occurs twice. */
  | { kind: 'ok'; instants: string[] }
  /** The time does not occur that day; `instant` is the same reading one offset change later. */
  | { kind: 'skipped'; instant: string };

/** The instants a local date-time (`YYYY-MM-DDTHH:mm[:ss]`, as a datetime-local input gives it) denotes. */
export function readLocalTime(value: string, timeZone: string): LocalTimeReading {
  const match = LOCAL_INPUT.exec(value);
  if (!match) return { kind: 'invalid' };
  const parts = match.slice(1, 7).map((part) => Number(part ?? 0));
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0] = parts;
  const wallMs = asUtc({ year, month, day, hour, minute, second });
  // Date.UTC rolls 2026-02-30 over into March: a date that rolled over does not exist.
  if (hour > 23 || minute > 59 || second > 59 || new Date(wallMs).getUTCDate() !== day) {
    return { kind: 'invalid' };
  }
  // The offsets in force a day before and a day after cover both sides of any change that day.
  const before = offsetAt(wallMs - DAY_MS, timeZone);
  const after = offsetAt(wallMs + DAY_MS, timeZone);
  const instants = [...new Set([before, after])]
    .map((offset) => wallMs - offset)
    .filter((ms) => asUtc(wallClockAt(ms, timeZone)) === wallMs)
    .sort((a, b) => a - b)
    .map((ms) => new Date(ms).toISOString());
  if (instants.length) return { kind: 'ok', instants };
  return { kind: 'skipped', instant: new Date(wallMs - before).toISOString() };
}

/** An instant as a datetime-local input's value in `timeZone` (`YYYY-MM-DDTHH:mm:ss`). */
export function localInputValue(iso: string, timeZone: string): string {
  const wall = wallClockAt(Date.parse(iso), timeZone);
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  return `${pad(wall.year, 4)}-${pad(wall.month)}-${pad(wall.day)}T${pad(wall.hour)}:${pad(wall.minute)}:${pad(wall.second)}`;
}

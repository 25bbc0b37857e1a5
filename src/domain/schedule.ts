// Producer schedules are candle intervals; their length drives Analysis expiry (X2).
export const SCHEDULES = ['1m', '3m', '5m', '15m', '30m', '1h', '2h', '4h', '8h', '12h', '1d'] as const;
export type Schedule = (typeof SCHEDULES)[number];

const MINUTE = 60_000;
const SCHEDULE_MS: Record<Schedule, number> = {
  '1m': MINUTE,
  '3m': 3 * MINUTE,
  '5m': 5 * MINUTE,
  '15m': 15 * MINUTE,
  '30m': 30 * MINUTE,
  '1h': 60 * MINUTE,
  '2h': 120 * MINUTE,
  '4h': 240 * MINUTE,
  '8h': 480 * MINUTE,
  '12h': 720 * MINUTE,
  '1d': 1440 * MINUTE,
};

export function isSchedule(v: string): v is Schedule {
  return (SCHEDULES as readonly string[]).includes(v);
}

export function scheduleMs(s: Schedule): number {
  return SCHEDULE_MS[s];
}

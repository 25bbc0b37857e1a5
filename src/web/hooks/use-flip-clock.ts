// The board's clock (B9): it ticks every 30 s for "12 min left", and wakes once exactly when the next
// FRESH group's known expiresAt passes, so the group reads STALE on time without asking the server.
import { useEffect, useState } from 'preact/hooks';
import { flipDelay } from '../health.js';

const TICK_MS = 30_000;

export function useFlipClock(nextFlip: (now: number) => number | null): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), TICK_MS);
    return () => clearInterval(timer);
  }, []);
  const next = nextFlip(now);
  useEffect(() => {
    if (next === null) return;
    const timer = setTimeout(() => setNow(Date.now()), flipDelay(next, Date.now()));
    return () => clearTimeout(timer);
  }, [next]);
  return now;
}

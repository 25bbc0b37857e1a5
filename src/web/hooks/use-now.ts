// The clock the page renders with: it ticks while the page stays open, so "5 minutes ago", freshness
// badges, "New" marks and the reconnect countdown follow the time.
import { useEffect, useState } from 'preact/hooks';

export function useNow(tickMs: number): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    // A faster tick (a countdown starting) starts from the current time, not the last slow tick.
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), tickMs);
    return () => clearInterval(timer);
  }, [tickMs]);
  return now;
}

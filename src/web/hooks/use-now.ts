// The clock the page renders with: it ticks while the page stays open, so "5 minutes ago", freshness
// badges and "New" marks follow the time.
import { useEffect, useState } from 'preact/hooks';

export function useNow(tickMs: number): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), tickMs);
    return () => clearInterval(timer);
  }, [tickMs]);
  return now;
}

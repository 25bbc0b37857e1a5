// Fan-out: one committed record is shown to every subscriber. Subscribers asking for the same
// selection share one database read instead of one read each (bounded, short-lived).

const TTL_MS = 10_000;
const MAX_ENTRIES = 2_000;

export class SharedLoads {
  private readonly entries = new Map<string, { at: number; value: Promise<unknown> }>();

  /** `load` runs once per key within the TTL; concurrent callers share its promise. */
  get<T>(key: string, load: () => Promise<T>, now = Date.now()): Promise<T> {
    const hit = this.entries.get(key);
    if (hit && now - hit.at < TTL_MS) return hit.value as Promise<T>;
    const value = load();
    // A failed load is not cached: the next subscriber retries.
    value.catch(() => this.entries.delete(key));
    this.entries.set(key, { at: now, value });
    if (this.entries.size > MAX_ENTRIES) {
      for (const [oldest] of this.entries) {
        this.entries.delete(oldest);
        if (this.entries.size <= MAX_ENTRIES) break;
      }
    }
    return value;
  }
}

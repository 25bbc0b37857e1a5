// B9: the freshness timeline of one (producer, type) lane — the trading context's answer over time.
// Between two change instants (a record created, an expiry, an enablement toggle) the context's
// answer for the lane cannot change, so it is asked once per change with the context's own rule
// (decideTradingContext: C2's latest record, C3's status).
import { decideTradingContext, type ContextCandidate } from './trading-context.js';

export interface LaneRecord extends ContextCandidate {
  /** A correction of this record (C6) was written before the timeline's end. */
  corrected: boolean;
}

export interface FreshInterval {
  from: Date;
  to: Date;
  memoryId: string;
  /** The record was corrected (C6) before the timeline's end. */
  corrected: boolean;
}

/**
 * The intervals in [from, to) during which the lane's then-latest record was FRESH, oldest first;
 * gaps are gaps. `records` are every candidate of the lane created by `to` that can be latest at
 * some instant of the range (the one latest at `from` included); `enabledAt` answers C3 at an instant.
 */
export function laneIntervals(input: {
  records: readonly LaneRecord[];
  from: Date;
  to: Date;
  enabledAt: (producerId: string, at: Date) => boolean;
  /** Enablement toggles of the lane's producer (instants in the range). */
  toggles: readonly Date[];
}): FreshInterval[] {
  const { records, from, to } = input;
  const instants = new Set<number>([from.getTime()]);
  for (const r of records) {
    instants.add(r.createdAt.getTime());
    if (r.expiresAt) instants.add(r.expiresAt.getTime());
  }
  for (const toggle of input.toggles) instants.add(toggle.getTime());
  const changes = [...instants].filter((t) => t >= from.getTime() && t < to.getTime()).sort((a, b) => a - b);
  const intervals: FreshInterval[] = [];
  for (const [i, start] of changes.entries()) {
    const at = new Date(start);
    const end = new Date(changes[i + 1] ?? to.getTime());
    const candidates = records.filter((r) => r.createdAt.getTime() <= start);
    const [entry] = decideTradingContext({
      at,
      candidates,
      corrections: [],
      enabledAt: (producerId) => input.enabledAt(producerId, at),
    }).entries;
    if (!entry || entry.status !== 'FRESH') continue;
    const { corrected } = entry.record;
    const last = intervals.at(-1);
    // One interval per record while it stays fresh (a change elsewhere in the lane does not split it).
    if (
      last &&
      last.memoryId === entry.record.id &&
      last.to.getTime() === start &&
      last.corrected === corrected
    ) {
      last.to = end;
    } else {
      intervals.push({ from: at, to: end, memoryId: entry.record.id, corrected });
    }
  }
  return intervals;
}

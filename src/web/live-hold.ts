// B5 without floods: whether a live record joins the list at once or waits under the "N new records" bar.

/** More live records than this within RATE_WINDOW_MS are a flood: the rest wait under the bar. */
export const FLOOD_RECORDS = 3;
export const RATE_WINDOW_MS = 1000;

/** The arrival times (epoch ms) still inside the rate window, `now` included. */
export function arrivalsWithin(times: readonly number[], now: number): number[] {
  return [...times.filter((at) => at > now - RATE_WINDOW_MS), now];
}

export interface HoldInput {
  /** Records are already waiting under the bar. */
  holding: boolean;
  /** The top of the list is above the viewport: the operator is reading further down. */
  scrolledIntoList: boolean;
  /** Live records that arrived within the rate window, this one included. */
  recentArrivals: number;
}

/**
 * A live record waits when others already wait (so the list never shows a later one before an earlier
 * one), when the list would move under the operator's eyes, or when records come faster than a few a
 * second.
 */
export function holdsLiveEdge({ holding, scrolledIntoList, recentArrivals }: HoldInput): boolean {
  return holding || scrolledIntoList || recentArrivals > FLOOD_RECORDS;
}

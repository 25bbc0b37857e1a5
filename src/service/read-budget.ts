// S8: expensive reads (searches, exports, MCP list calls) are counted per token: one token runs at
// most MAX_EXPENSIVE_PER_TOKEN at a time. A read that finds its token's slots taken waits up to a
// second for one, then is refused with RATE_LIMITED. (Their statements also run on capacity of their
// own, so no other caller's reads or writes queue behind them: the store's expensive lane.)
import { RateLimitedError } from '../domain/errors.js';
import type { Database } from '../store/db.js';
import { Slots, type ReleaseSlot } from '../store/slots.js';

/** MAX_EXPENSIVE_PER_TOKEN's default. */
export const DEFAULT_MAX_EXPENSIVE_PER_TOKEN = 2;

/** How long an expensive read waits for one of its token's slots. */
const WAIT_MS = 1000;

export class ReadBudget {
  private readonly slots: Slots;

  constructor(perToken: number) {
    this.slots = new Slots({
      perKey: perToken,
      total: Number.POSITIVE_INFINITY,
      waitMs: WAIT_MS,
      refusal: () =>
        new RateLimitedError(
          `Too many expensive reads at once (searches, exports, MCP list calls): at most ${perToken} per token; retry when one has answered`,
          Math.ceil(WAIT_MS / 1000),
        ),
    });
  }

  /** One of the token's slots (`tokenKey`: the token's hash); RateLimitedError when none freed in time. */
  acquire(tokenKey: string, signal?: AbortSignal): Promise<ReleaseSlot> {
    return this.slots.acquire(tokenKey, signal);
  }

  /** Runs `read` in one of the token's slots, its statements on the expensive lane. */
  async run<T>(
    tokenKey: string,
    db: Database,
    read: (db: Database) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    const release = await this.acquire(tokenKey, signal);
    try {
      return await read(db.scoped({ expensive: true }));
    } finally {
      release();
    }
  }

  /** Expensive reads running now (for metrics). */
  get inUse(): number {
    return this.slots.size;
  }
}

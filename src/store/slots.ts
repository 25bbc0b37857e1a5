// Counted slots with a bounded wait: at most `perKey` held per key and `total` in all; a taker that
// finds none waits up to `waitMs` (first come, first served among those that fit), then is refused.
import { RateLimitedError, ReadCancelledError } from '../domain/errors.js';
import type { Sql } from './db.js';

export interface SlotLimits {
  perKey: number;
  total: number;
  waitMs: number;
  /** The error a taker gets when no slot freed within `waitMs`. */
  refusal: () => Error;
}

/** Gives a slot back; calling it again does nothing. */
export type ReleaseSlot = () => void;

interface Waiter {
  key: string;
  grant: () => void;
}

export class Slots {
  private readonly held = new Map<string, number>();
  private inUse = 0;
  private readonly waiting: Waiter[] = [];

  constructor(private readonly limits: SlotLimits) {}

  /** A slot for `key`: at once when there is room, else when one frees within the wait; ReadCancelledError when `signal` aborts first. */
  async acquire(key: string, signal?: AbortSignal): Promise<ReleaseSlot> {
    if (signal?.aborted) throw new ReadCancelledError();
    if (this.fits(key)) return this.take(key);
    return new Promise<ReleaseSlot>((resolve, reject) => {
      const settle = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', cancelled);
        const index = this.waiting.indexOf(waiter);
        if (index >= 0) this.waiting.splice(index, 1);
      };
      const waiter: Waiter = {
        key,
        grant: () => {
          settle();
          resolve(this.take(key));
        },
      };
      const cancelled = () => {
        settle();
        reject(new ReadCancelledError());
      };
      const timer = setTimeout(() => {
        settle();
        reject(this.limits.refusal());
      }, this.limits.waitMs);
      signal?.addEventListener('abort', cancelled, { once: true });
      this.waiting.push(waiter);
    });
  }

  /** Slots held now. */
  get size(): number {
    return this.inUse;
  }

  private fits(key: string): boolean {
    return this.inUse < this.limits.total && (this.held.get(key) ?? 0) < this.limits.perKey;
  }

  private take(key: string): ReleaseSlot {
    this.inUse += 1;
    this.held.set(key, (this.held.get(key) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inUse -= 1;
      const left = (this.held.get(key) ?? 1) - 1;
      if (left > 0) this.held.set(key, left);
      else this.held.delete(key);
      for (const waiter of [...this.waiting]) if (this.fits(waiter.key)) waiter.grant();
    };
  }
}

/** S8: expensive statements running at once in this process, with a bounded wait for one more. */
export function expensiveGate(capacity: number, waitMs: number): Slots {
  return new Slots({
    perKey: capacity,
    total: capacity,
    waitMs,
    refusal: () =>
      new RateLimitedError('The service is at its capacity for expensive reads; retry in a moment', 1),
  });
}

/**
 * Each statement of `sql` holds one of the gate's slots while it runs. `yieldFirst` (PGlite, whose
 * statements run on the event loop) lets pending I/O and timers run before each one starts: a
 * slot handed from one expensive statement to the next would otherwise chain them in microtasks and
 * keep every other request — and the waiters' own timeouts — from running in between.
 */
export function gated(sql: Sql, gate: Slots, signal: AbortSignal | undefined, yieldFirst = false): Sql {
  return {
    async query(text, params, name) {
      const release = await gate.acquire('', signal);
      try {
        if (yieldFirst) await new Promise<void>((resolve) => setImmediate(resolve));
        return await sql.query(text, params, name);
      } finally {
        release();
      }
    },
  };
}

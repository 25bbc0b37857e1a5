// A subscription's records as an async iterator (a Repeater, so returning it while nothing arrives
// ends it at once), fed synchronously through a bounded queue: a consumer that falls more than
// `maxPending` values behind is ended with SLOW_CONSUMER, and an error ends the stream at once —
// the consumer resumes from the last record it received.
import { Repeater } from 'graphql-yoga';
import { SlowConsumerError } from '../domain/errors.js';

export interface QueueSink<T> {
  next(value: T): void;
  /** The feed ended: stopped (no error), or failed. */
  end(error?: unknown): void;
}

/**
 * `start` begins feeding `sink` and returns how to stop the feed (with the error it ends with).
 * `lastValue` turns an error into a final value instead of a thrown one.
 */
export function queuedStream<T>(
  maxPending: number,
  start: (sink: QueueSink<T>) => (error?: unknown) => void,
  lastValue?: (error: unknown) => T,
): Repeater<T> {
  return new Repeater<T>(async (push, stop) => {
    const queue: T[] = [];
    const state: { failure: { error: unknown } | null; ended: boolean } = { failure: null, ended: false };
    let wake = () => {};
    const cancel = start({
      next(value) {
        queue.push(value);
        if (queue.length > maxPending) cancel(new SlowConsumerError(maxPending));
        wake();
      },
      end(error) {
        state.ended = true;
        if (error !== undefined) state.failure ??= { error };
        wake();
      },
    });
    void stop.then(() => cancel());
    for (;;) {
      if (state.failure) {
        if (!lastValue) return stop(state.failure.error);
        await push(lastValue(state.failure.error));
        break;
      }
      const value = queue.shift();
      if (value !== undefined) await push(value);
      else if (state.ended) break;
      else await new Promise<void>((resolve) => (wake = resolve));
    }
    stop();
  });
}

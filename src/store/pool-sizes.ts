// How many PostgreSQL connections one instance opens at most (DATABASE_POOL_SIZE), pool by pool. Its
// own module: the settings parser reads the default without loading a driver.

/** DATABASE_POOL_SIZE's default: 54 connections per instance at most. */
export const DEFAULT_POOL_SIZE = 20;

/**
 * `queries` and `named` get the pool size each, `writes` half of it and `expensive` a fifth (at
 * least 2 each): the expensive pool's connections are all the expensive reads that can run at once.
 */
export function poolSizes(poolSize: number) {
  return {
    queries: poolSize,
    named: poolSize,
    writes: Math.max(2, Math.round(poolSize / 2)),
    expensive: Math.max(2, Math.round(poolSize / 5)),
  };
}

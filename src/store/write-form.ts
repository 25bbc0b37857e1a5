// D2: how the record write reaches the database (`WRITE_FORM`). `statement`: the one statement with
// data-modifying CTEs, one round trip (src/records/record-write.ts). `transaction`: single-shard
// statements in one transaction, which a distributed engine's router planner (Citus) routes to the
// agent's shard (src/records/routable-write.ts). Its own module: the settings parser reads it
// without loading a driver.
export const WRITE_FORMS = ['statement', 'transaction'] as const;
export type WriteForm = (typeof WRITE_FORMS)[number];

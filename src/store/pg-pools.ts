// The PostgreSQL pools and how one statement runs on them: bounded by the server's statement_timeout
// (S7), on capacity of its own by kind (S8), cancelled when nobody waits for it any more (S9).
import net from 'node:net';
import pg from 'pg';
import { QueryTimeoutError, ReadCancelledError } from '../domain/errors.js';
import type { Database, Sql, StatementScope } from './db.js';
import { expensiveGate, gated } from './slots.js';
import { pgTypes } from './pg-instants.js';
import { poolSizes } from './pool-sizes.js';

export type PoolName = 'queries' | 'named' | 'writes' | 'expensive';

/**
 * - `queries`: Prisma and unnamed reads; `named`: the service's named statements, planned once per
 *   connection as generic plans (see `connect` below);
 * - `writes`: the record write and transactions (imports, finishRun), with the larger write bound, so
 *   a write never waits for a read's connection;
 * - `expensive`: searches, exports and MCP list calls — few connections, so they can occupy neither
 *   the others' connections nor more than their share of the server (S8).
 */
export type PgPools = Readonly<Record<PoolName, StatementPool>>;

export interface PoolSettings {
  connectionString: string;
  /** DATABASE_POOL_SIZE: each pool's share of it is ./pool-sizes.ts'. */
  poolSize: number;
  /** S7: statement_timeout of the read pools, in ms. */
  statementTimeoutMs: number;
  /** statement_timeout of the `writes` pool, in ms. */
  writeTimeoutMs: number;
  genericPlans: boolean;
}

/** A pool and how a client is taken from it (the `named` pool sets its sessions up once). */
export interface StatementPool {
  readonly pool: pg.Pool;
  connect(): Promise<pg.PoolClient>;
  /** The bound the server enforces on this pool's statements (S7), in ms. */
  readonly timeoutMs: number;
}

export function openPools(settings: PoolSettings): PgPools {
  const { connectionString, poolSize, statementTimeoutMs, writeTimeoutMs } = settings;
  const plain = (max: number, timeoutMs: number): StatementPool => {
    const pool = new pg.Pool({ connectionString, max, statement_timeout: timeoutMs, types: pgTypes });
    survivesLostConnections(pool);
    return { pool, timeoutMs, connect: () => pool.connect() };
  };
  const sizes = poolSizes(poolSize);
  return {
    queries: plain(sizes.queries, statementTimeoutMs),
    named: genericPlanPool(connectionString, sizes.named, statementTimeoutMs, settings.genericPlans),
    writes: plain(sizes.writes, writeTimeoutMs),
    expensive: plain(sizes.expensive, statementTimeoutMs),
  };
}

/**
 * A connection that loses its server must not crash the process: an idle one reports to the pool
 * (`error`), a checked-out one to its client — and pg-pool listens there only inside its own
 * `pool.query`, not for a client taken with `pool.connect()`, where an unheard `error` event would
 * be thrown. The query in flight fails either way and its client is released with the error.
 */
function survivesLostConnections(pool: pg.Pool): void {
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
}

/**
 * The pool of the named statements: each of its connections plans a named statement ONCE, as a
 * generic plan (`plan_cache_mode = force_generic_plan`, set when the connection first serves).
 * PostgreSQL's own choice re-plans such a statement with its values on every execution whenever the
 * generic plan's estimate is the higher — a browse page's statement always, ≈ 0.5 ms of planning on
 * a ≈ 1 ms page. The setting also applies to unnamed statements, whose plans should follow their
 * values (Prisma's, the trading context's, a search's), so those keep their own pool.
 */
function genericPlanPool(
  connectionString: string,
  max: number,
  timeoutMs: number,
  genericPlans: boolean,
): StatementPool {
  const pool = new pg.Pool({ connectionString, max, statement_timeout: timeoutMs, types: pgTypes });
  survivesLostConnections(pool);
  const generic = new WeakSet<pg.PoolClient>();
  return {
    pool,
    timeoutMs,
    async connect() {
      const client = await pool.connect();
      if (genericPlans && !generic.has(client)) {
        // A server that refuses the setting only costs speed; a dead connection fails the query after.
        await client.query('SET plan_cache_mode = force_generic_plan').catch(() => {});
        generic.add(client);
      }
      return client;
    },
  };
}

/** SQLSTATE query_canceled: the server stopped the statement (statement_timeout or a cancel request). */
const isQueryCanceled = (error: unknown): boolean =>
  error instanceof pg.DatabaseError && error.code === '57014';

/** A statement as `pg` takes it: named (prepared once per connection) when `name` is given. */
const queryConfig = (text: string, values: unknown[], name?: string): pg.QueryConfig => ({
  text,
  values,
  ...(name ? { name } : {}),
});

/**
 * Runs one statement on a client of `target`. When `signal` aborts, a statement not yet sent is never
 * sent and a running one is cancelled by PostgreSQL's cancel request (S9); a statement the server
 * stopped at its statement_timeout is a QueryTimeoutError (S7).
 */
export async function runStatement(
  target: StatementPool,
  config: pg.QueryConfig,
  signal?: AbortSignal,
): Promise<pg.QueryResult> {
  if (signal?.aborted) throw new ReadCancelledError();
  const client = await target.connect();
  if (signal?.aborted) {
    client.release();
    throw new ReadCancelledError();
  }
  let cancelled = false;
  const cancel = () => {
    cancelled = true;
    sendCancelRequest(client);
  };
  signal?.addEventListener('abort', cancel, { once: true });
  try {
    const result = await client.query(config);
    // A cancel request still on its way could stop the next statement on this connection: never reuse it.
    client.release(cancelled);
    return result;
  } catch (error) {
    // A server-reported error leaves the connection usable; anything else (a lost connection) does not.
    client.release(cancelled || !(error instanceof pg.DatabaseError) ? toError(error) : undefined);
    if (isQueryCanceled(error)) {
      throw cancelled ? new ReadCancelledError() : new QueryTimeoutError(target.timeoutMs);
    }
    throw error;
  } finally {
    signal?.removeEventListener('abort', cancel);
  }
}

const toError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

/** PostgreSQL's CancelRequest for the backend serving `client`: its own short connection, no login. */
function sendCancelRequest(client: pg.PoolClient): void {
  const processId: unknown = Reflect.get(client, 'processID');
  const secretKey: unknown = Reflect.get(client, 'secretKey');
  if (typeof processId !== 'number' || typeof secretKey !== 'number') return;
  const message = Buffer.alloc(16);
  message.writeInt32BE(16, 0);
  message.writeInt32BE(80877102, 4); // the CancelRequest code
  message.writeInt32BE(processId, 8);
  message.writeInt32BE(secretKey, 12);
  const socket = client.host.startsWith('/')
    ? net.connect(`${client.host}/.s.PGSQL.${client.port}`)
    : net.connect(client.port, client.host);
  socket.on('error', () => {});
  socket.end(message);
}

/** The driver's statements: reads by scope, the write path, transactions. */
export interface DirectSql {
  reads(scope: StatementScope): Sql;
  writes: Sql;
  sqlTransaction: Database['sqlTransaction'];
}

export type Observe = (sql: Sql) => Sql;

/** The direct SQL of PostgreSQL: reads by scope on their pools, the write pool, transactions. */
export function pgSql(pools: PgPools, observed: Observe): DirectSql {
  const on = (target: StatementPool, signal?: AbortSignal): Sql =>
    observed({
      query: async <T>(text: string, params: unknown[] = [], name?: string) =>
        (await runStatement(target, queryConfig(text, params, name), signal)).rows as T[],
    });
  // A named statement of an ordinary read gets a forced generic plan on the named pool; an
  // expensive read's runs on its own pool under PostgreSQL's own plan choice (custom plans first).
  const ordinary = (signal?: AbortSignal): Sql => {
    const named = on(pools.named, signal);
    const unnamed = on(pools.queries, signal);
    return { query: (text, params, name) => (name ? named : unnamed).query(text, params, name) };
  };
  // The expensive pool's connections are all its statements: one more waits here, bounded (S8).
  const gate = expensiveGate(pools.expensive.pool.options.max ?? 1, pools.expensive.timeoutMs);
  return {
    reads: (scope) =>
      scope.expensive ? gated(on(pools.expensive, scope.signal), gate, scope.signal) : ordinary(scope.signal),
    writes: on(pools.writes),
    async sqlTransaction<T>(work: (sql: Sql) => Promise<T>): Promise<T> {
      const client = await pools.writes.connect();
      const direct: Sql = {
        ...observed({
          query: async <R>(text: string, params: unknown[] = [], name?: string) => {
            try {
              return (await client.query(queryConfig(text, params, name))).rows as R[];
            } catch (error) {
              // S7: a statement stopped at the write pool's bound is a timeout, as outside a transaction.
              if (isQueryCanceled(error)) throw new QueryTimeoutError(pools.writes.timeoutMs);
              throw error;
            }
          },
        }),
        inTransaction: true,
      };
      // A connection whose ROLLBACK failed may still be inside the transaction: never reuse it.
      let unusable: Error | undefined;
      try {
        await direct.query('BEGIN');
        const result = await work(direct);
        await direct.query('COMMIT');
        return result;
      } catch (error) {
        await direct.query('ROLLBACK').catch((failed: unknown) => (unusable = toError(failed)));
        throw error;
      } finally {
        client.release(unusable);
      }
    },
  };
}

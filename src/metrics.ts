// Prometheus metrics (GET /metrics): requests and latency per operation, write outcomes by code, open
// connections (WebSocket, SSE) and subscriptions, deliveries and drops, database pool use. One registry per server, no
// globals; labels come from the schema and the error vocabulary, never from clients or agents.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type pg from 'pg';
import type { Database } from './store/db.js';

export interface MetricsSources {
  /** Open connections by transport right now: accepted WebSockets and SSE streams (S11). */
  openConnections: () => { ws: number; sse: number };
  /** The PostgreSQL pools by name (null on PGlite); each gauge has one series per pool. */
  pools: Database['pools'];
  /** S8: expensive reads (searches, exports, MCP list calls) holding a token's slot right now. */
  expensiveReads?: () => number;
}

export class Metrics {
  readonly registry = new Registry();
  readonly operations = new Counter({
    name: 'memory_graphql_operations_total',
    help: 'GraphQL operations by type, first root field and outcome (ok | error).',
    labelNames: ['type', 'field', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly operationSeconds = new Histogram({
    name: 'memory_graphql_operation_duration_seconds',
    help: 'Execution time of GraphQL queries and mutations by first root field.',
    labelNames: ['type', 'field'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });
  readonly queryExecutors = new Counter({
    name: 'memory_graphql_query_executions_total',
    help: 'GraphQL queries by the executor that answered them: compiled, or reference (not compiled yet, not compilable, refused variables, or a compiled run with errors answered again).',
    labelNames: ['executor'] as const,
    registers: [this.registry],
  });
  readonly queryCompilations = new Counter({
    name: 'memory_graphql_query_compilations_total',
    help: 'Query documents compiled (graphql-jit); rising steadily means the compile cache churns.',
    registers: [this.registry],
  });
  readonly writes = new Counter({
    name: 'memory_writes_total',
    help: 'createMemory outcomes by transport and code (created, retried, or the error code).',
    labelNames: ['transport', 'code'] as const,
    registers: [this.registry],
  });
  readonly publicationLateness = new Histogram({
    name: 'memory_publication_lateness_seconds',
    help: "B8: createdAt − the run's evidence boundary of records written by scheduled runs, by run kind and schedule.",
    labelNames: ['run_kind', 'schedule'] as const,
    buckets: [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 14400, 43200, 86400],
    registers: [this.registry],
  });
  readonly staleOnArrival = new Counter({
    name: 'memory_records_stale_on_arrival_total',
    help: 'B8, X4: records stored at or after their own expiry, by run kind.',
    labelNames: ['run_kind'] as const,
    registers: [this.registry],
  });
  readonly exports = new Counter({
    name: 'memory_exports_total',
    help: 'GET /api/v1/export by format and outcome (complete, cancelled, failed, or why it was refused).',
    labelNames: ['format', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly exportedRecords = new Counter({
    name: 'memory_exported_records_total',
    help: 'Records streamed by GET /api/v1/export.',
    labelNames: ['format'] as const,
    registers: [this.registry],
  });
  readonly readsRefused = new Counter({
    name: 'memory_reads_refused_total',
    help: 'Requests refused for their cost: query_timeout (a statement ran past STATEMENT_TIMEOUT_MS, S7) or rate_limited (the token already ran MAX_EXPENSIVE_PER_TOKEN expensive reads, or the expensive lane was full, S8).',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  readonly subscriptions = new Gauge({
    name: 'memory_subscriptions_open',
    help: 'Open memoryAdded subscriptions (WebSocket and SSE).',
    registers: [this.registry],
  });
  /** Deliveries since the last collection (see countDelivery). */
  private readonly uncollectedDeliveries = { live: 0, replay: 0 };
  readonly deliveries = new Counter({
    name: 'memory_deliveries_total',
    help: 'Records delivered to subscribers (replayed after a cursor, or live).',
    labelNames: ['source'] as const,
    registers: [this.registry],
    collect: () => {
      for (const source of ['live', 'replay'] as const) {
        const count = this.uncollectedDeliveries[source];
        this.uncollectedDeliveries[source] = 0;
        if (count) this.deliveries.inc({ source }, count);
      }
    },
  });
  readonly drops = new Counter({
    name: 'memory_subscriptions_dropped_total',
    help: 'Subscriptions ended by the server: slow consumers and revoked tokens.',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  constructor(sources: MetricsSources) {
    collectDefaultMetrics({ register: this.registry, prefix: 'memory_' });
    new Gauge({
      name: 'memory_connections_open',
      help: 'Open connections by transport (ws: accepted WebSockets, sse: subscription streams over HTTP); MAX_CONNECTIONS_PER_TOKEN bounds both together.',
      labelNames: ['transport'] as const,
      registers: [this.registry],
      collect() {
        const open = sources.openConnections();
        this.set({ transport: 'ws' }, open.ws);
        this.set({ transport: 'sse' }, open.sse);
      },
    });
    const { expensiveReads } = sources;
    if (expensiveReads) {
      new Gauge({
        name: 'memory_expensive_reads_running',
        help: "Searches, exports and MCP list calls running now, each holding one of its token's MAX_EXPENSIVE_PER_TOKEN slots (S8).",
        registers: [this.registry],
        collect() {
          this.set(expensiveReads());
        },
      });
    }
    if (sources.pools) {
      const pools = Object.entries(sources.pools);
      // One series per pool: queries (Prisma, unnamed reads), named (generic plans), writes, expensive.
      const poolGauge = (name: string, help: string, read: (pool: pg.Pool) => number) =>
        new Gauge({
          name,
          help,
          labelNames: ['pool'],
          registers: [this.registry],
          collect() {
            for (const [label, pool] of pools) this.set({ pool: label }, read(pool));
          },
        });
      poolGauge(
        'memory_db_pool_connections',
        'PostgreSQL pool connections (idle and in use).',
        (pool) => pool.totalCount,
      );
      poolGauge('memory_db_pool_idle', 'Idle PostgreSQL pool connections.', (pool) => pool.idleCount);
      poolGauge(
        'memory_db_pool_waiting',
        'Queries waiting for a PostgreSQL pool connection.',
        (pool) => pool.waitingCount,
      );
    }
  }

  /**
   * One record delivered to a subscriber: a plain count, added to memory_deliveries_total when it is
   * collected (prom-client hashes and validates the labels on every `inc`, bound ones too: at
   * 1,000 subscribers and 50 writes/s that was 50,000 times a second).
   */
  countDelivery(source: 'live' | 'replay'): void {
    this.uncollectedDeliveries[source]++;
  }

  async render(): Promise<{ body: string; contentType: string }> {
    return { body: await this.registry.metrics(), contentType: this.registry.contentType };
  }
}

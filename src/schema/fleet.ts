// Agent.health (B8, an addition beyond the contract): the fleet table's row for an
// agent — instruments, producers by health status (B8 at now), last decision, records in 24 h.
// Every Agent of one answer is summed up together: two health statements and one count statement.
import type { ProducerHealthStatus } from '../domain/producer-health.js';
import { loadHealthOf } from '../service/producer-health.js';
import { loadFleetCounts } from '../store/fleet.js';
import { builder } from './builder.js';
import type { GraphQLContext } from './context.js';
import { insightReaders } from './runs.js';

interface AgentHealthSummary {
  instrumentsSelected: number;
  producers: Record<ProducerHealthStatus, number>;
  lastDecisionAt: Date | null;
  recordsLast24h: number;
}

const DAY_MS = 86_400_000;

type Waiter = { resolve(summary: AgentHealthSummary): void; reject(error: unknown): void };
/** The agents asked for in one tick of one request, loaded together (no statement per agent). */
const pending = new WeakMap<GraphQLContext, Map<string, Waiter[]>>();

async function summarise(ctx: GraphQLContext, agentIds: string[]): Promise<Map<string, AgentHealthSummary>> {
  const now = ctx.now();
  const lastDay = { from: new Date(now.getTime() - DAY_MS), to: now };
  const [health, counts] = await Promise.all([
    loadHealthOf(ctx.db, agentIds, lastDay, now),
    loadFleetCounts(ctx.db, agentIds, lastDay),
  ]);
  const summaries = new Map<string, AgentHealthSummary>();
  for (const row of counts) {
    summaries.set(row.agentId, {
      instrumentsSelected: row.instrumentsSelected,
      recordsLast24h: row.recordsLast24h,
      lastDecisionAt: row.lastDecisionAt === null ? null : new Date(row.lastDecisionAt),
      producers: { HEALTHY: 0, LATE: 0, MISSING: 0, DISABLED: 0, UNSCHEDULED: 0 },
    });
  }
  for (const h of health) {
    const summary = summaries.get(h.producer.agentId);
    if (summary) summary.producers[h.status] += 1;
  }
  return summaries;
}

function summaryOf(ctx: GraphQLContext, agentId: string): Promise<AgentHealthSummary> {
  let batch = pending.get(ctx);
  if (!batch) {
    const current = new Map<string, Waiter[]>();
    batch = current;
    pending.set(ctx, current);
    // Sibling Agents resolve their fields in the same tick: the next one loads them all.
    process.nextTick(() => void flush(ctx, current));
  }
  const waiters = batch.get(agentId) ?? [];
  batch.set(agentId, waiters);
  return new Promise((resolve, reject) => waiters.push({ resolve, reject }));
}

async function flush(ctx: GraphQLContext, batch: Map<string, Waiter[]>): Promise<void> {
  pending.delete(ctx);
  try {
    const all = await summarise(ctx, [...batch.keys()]);
    for (const [id, waiters] of batch) {
      const summary = all.get(id);
      for (const w of waiters) {
        if (summary) w.resolve(summary);
        else w.reject(new Error(`agent ${id} has no summary`));
      }
    }
  } catch (error) {
    for (const waiters of batch.values()) for (const w of waiters) w.reject(error);
  }
}

const AgentHealthRef = builder.objectRef<AgentHealthSummary>('AgentHealth').implement({
  description: 'The fleet table’s row for one agent (B8), at now.',
  fields: (t) => ({
    instrumentsSelected: t.exposeInt('instrumentsSelected'),
    producersHealthy: t.int({ resolve: (s) => s.producers.HEALTHY }),
    producersLate: t.int({ resolve: (s) => s.producers.LATE }),
    producersMissing: t.int({ resolve: (s) => s.producers.MISSING }),
    producersDisabled: t.int({ resolve: (s) => s.producers.DISABLED }),
    producersUnscheduled: t.int({ resolve: (s) => s.producers.UNSCHEDULED }),
    lastDecisionAt: t.expose('lastDecisionAt', { type: 'DateTime', nullable: true }),
    recordsLast24h: t.exposeInt('recordsLast24h', { description: 'Records created in the last 24 h.' }),
  }),
});

builder.prismaObjectFields('Agent', (t) => ({
  health: t.field({
    ...insightReaders,
    type: AgentHealthRef,
    description:
      'B8 (beyond the contract): producers by B8 status over the last 24 h, last decision, records in 24 h. Operators, Review runs, the admin.',
    resolve: (agent, _args, ctx) => summaryOf(ctx, agent.id),
  }),
}));

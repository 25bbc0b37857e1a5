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

/** The summaries of the agents of one answer, in their order (a per-request loader: Pothos' dataloader). */
async function summarise(
  agentIds: readonly string[],
  ctx: GraphQLContext,
): Promise<(AgentHealthSummary | Error)[]> {
  const now = ctx.now();
  const lastDay = { from: new Date(now.getTime() - DAY_MS), to: now };
  const [health, counts] = await Promise.all([
    loadHealthOf(ctx.db, [...agentIds], lastDay, now),
    loadFleetCounts(ctx.db, [...agentIds], lastDay),
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
  return agentIds.map((id) => summaries.get(id) ?? new Error(`agent ${id} has no summary`));
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
  health: t.loadable({
    ...insightReaders,
    type: AgentHealthRef,
    load: summarise,
    description:
      'B8 (beyond the contract): producers by B8 status over the last 24 h, last decision, records in 24 h. Operators, Review runs, the admin.',
    resolve: (agent) => agent.id,
  }),
}));

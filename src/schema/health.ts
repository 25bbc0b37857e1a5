// B8: producer health over a window — the desk's Health tab reads it (operators, Review runs, the admin).
import { agentForRead } from '../auth/access.js';
import { loadProducerHealth, type ProducerHealthView } from '../service/producer-health.js';
import { ProducerRef, RunRef } from './admin.js';
import { builder } from './builder.js';
import { TimeWindowRef } from './browser.js';
import { insightReaders } from './runs.js';

const ProducerHealthStatusEnum = builder.enumType('ProducerHealthStatus', {
  description:
    'B8, at now: DISABLED (disabled), UNSCHEDULED (no schedule), MISSING (the last two completed cycles missed), LATE (the last one missed or stale on arrival), else HEALTHY.',
  values: ['HEALTHY', 'LATE', 'MISSING', 'DISABLED', 'UNSCHEDULED'] as const,
});

const ProducerHealthRef = builder.objectRef<ProducerHealthView>('ProducerHealth').implement({
  description: 'B8: one producer over the window; cycles are its schedule’s UTC boundaries in the window.',
  fields: (t) => ({
    producer: t.field({ type: ProducerRef, resolve: (h) => h.producer }),
    status: t.expose('status', { type: ProducerHealthStatusEnum }),
    lastRun: t.field({
      type: RunRef,
      nullable: true,
      description: 'Its latest run.',
      resolve: (h) => h.lastRun,
    }),
    lastRecordAt: t.expose('lastRecordAt', {
      type: 'DateTime',
      nullable: true,
      description: 'Its latest record (among its latest 50 runs).',
    }),
    nextBoundary: t.expose('nextBoundary', {
      type: 'DateTime',
      nullable: true,
      description: 'The next candle close after now (null when unscheduled or disabled).',
    }),
    cyclesExpected: t.exposeInt('cyclesExpected', {
      description: 'Completed cycles in the window while the producer existed and was enabled.',
    }),
    cyclesWithRecord: t.exposeInt('cyclesWithRecord', {
      description: 'Of those, cycles with a record by a run of that evidence boundary.',
    }),
    missedBoundaries: t.expose('missedBoundaries', {
      type: ['DateTime'],
      description: 'Completed cycles without a record, newest first, at most 100.',
    }),
    latenessP50Seconds: t.exposeFloat('latenessP50Seconds', {
      nullable: true,
      description: 'Median of createdAt − evidenceBoundary over the window’s cycles’ records.',
    }),
    latenessP95Seconds: t.exposeFloat('latenessP95Seconds', { nullable: true }),
    latenessMaxSeconds: t.exposeFloat('latenessMaxSeconds', { nullable: true }),
    staleOnArrival: t.exposeInt('staleOnArrival', {
      description: 'Records of the window’s cycles stored at or after their expiry (X4).',
    }),
    failedRuns: t.exposeInt('failedRuns', { description: 'Runs started in the window that FAILED.' }),
    cancelledRuns: t.exposeInt('cancelledRuns', {
      description: 'Runs started in the window that were CANCELLED.',
    }),
    emptyRuns: t.exposeInt('emptyRuns', {
      description: 'Runs started in the window that SUCCEEDED without a record (B7).',
    }),
  }),
});

builder.queryField('producerHealth', (t) =>
  t.withAuth(insightReaders.authScopes).field({
    unauthorizedError: insightReaders.unauthorizedError,
    type: [ProducerHealthRef],
    description:
      'B8: every producer of the agent (by name) over the window (default: the last 24 h), status at now. Operators and Review runs imply their agent; admin passes agentId.',
    args: { agentId: t.arg({ type: 'UUID' }), window: t.arg({ type: TimeWindowRef }) },
    resolve: (_root, args, ctx) =>
      loadProducerHealth(ctx.db, agentForRead(ctx.caller, args.agentId), args.window, ctx.now()),
  }),
);

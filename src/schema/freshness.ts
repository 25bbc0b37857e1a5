// B9: the freshness board (every selected instrument × (producer, type) group at an instant) and the
// timeline of one instrument — the trading context's own answer, for the desk.
import { agentForRead } from '../auth/access.js';
import { requireStorableText } from '../domain/errors.js';
import type { FreshInterval } from '../domain/freshness-timeline.js';
import {
  loadFreshnessBoard,
  loadFreshnessTimeline,
  type BoardGroupView,
  type BoardInstrumentView,
  type FreshnessBoardView,
  type FreshnessTimelineView,
  type TimelineLaneView,
} from '../service/freshness.js';
import type { Database } from '../store/db.js';
import { findRecordsByIds } from '../records/record-reads.js';
import { ProducerRef } from './admin.js';
import { builder } from './builder.js';
import { MemoryRef } from './memory.js';
import { recordNeeds } from './record-needs.js';
import { insightReaders } from './runs.js';

export const FreshnessStateEnum = builder.enumType('FreshnessState', {
  description: 'B9: as tradingContext reports the group (C3); NONE: the instrument has no record of it.',
  values: ['FRESH', 'STALE', 'DISABLED', 'NONE'] as const,
});

/** The agent's producers by id, read once per answer (a board or timeline names each of them). */
async function producersOf(db: Database, agentId: string) {
  const producers = await db.prisma.producer.findMany({ where: { agentId } });
  return new Map(producers.map((p) => [p.id, p]));
}
type ProducerRow = NonNullable<
  Awaited<ReturnType<typeof producersOf>> extends Map<string, infer P> ? P : never
>;

type WithProducer<T> = T & { producer: ProducerRow };
type BoardAnswer = Omit<FreshnessBoardView, 'instruments'> & {
  instruments: (Omit<BoardInstrumentView, 'groups'> & { groups: WithProducer<BoardGroupView>[] })[];
};
type TimelineAnswer = Omit<FreshnessTimelineView, 'lanes'> & { lanes: WithProducer<TimelineLaneView>[] };

function attach<T extends { producerId: string }>(items: T[], producers: Map<string, ProducerRow>) {
  return items.map((item) => {
    const producer = producers.get(item.producerId);
    if (!producer) throw new Error(`producer ${item.producerId} of the answer is not stored`);
    return { ...item, producer };
  });
}

const BoardGroupRef = builder.objectRef<WithProducer<BoardGroupView>>('BoardGroup').implement({
  fields: (t) => ({
    producer: t.field({ type: ProducerRef, resolve: (g) => g.producer }),
    type: t.exposeString('type'),
    state: t.expose('state', { type: FreshnessStateEnum }),
    memoryId: t.expose('memoryId', {
      type: 'UUID',
      nullable: true,
      description: 'The group’s kept record (C2).',
    }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', nullable: true }),
  }),
});

const BoardInstrumentRef = builder
  .objectRef<BoardAnswer['instruments'][number]>('BoardInstrument')
  .implement({
    fields: (t) => ({
      instrument: t.exposeString('instrument'),
      groups: t.field({ type: [BoardGroupRef], resolve: (i) => i.groups }),
      latestDecision: t.field({
        type: MemoryRef,
        nullable: true,
        description: 'The latest trading_decision for the instrument at or before `at`.',
        // Loaded for every instrument at once by FreshnessBoard.instruments.
        resolve: (i) =>
          (i as { decision?: Awaited<ReturnType<typeof findRecordsByIds>>[number] }).decision ?? null,
      }),
      decisionFreshEvidence: t.exposeInt('decisionFreshEvidence', {
        nullable: true,
        description: 'Its considered records that were fresh at its createdAt.',
      }),
      decisionStaleEvidence: t.exposeInt('decisionStaleEvidence', {
        nullable: true,
        description: 'Its considered records that were stale at its createdAt.',
      }),
    }),
  });

const FreshnessBoardRef = builder.objectRef<BoardAnswer>('FreshnessBoard').implement({
  description:
    'B9: every instrument selected at `at` × each (producer, type) group, as tradingContext decides.',
  fields: (t) => ({
    at: t.expose('at', { type: 'DateTime' }),
    instruments: t.field({
      type: [BoardInstrumentRef],
      resolve: async (board, _args, ctx, info) => {
        const ids = board.instruments.flatMap((i) => (i.latestDecisionId ? [i.latestDecisionId] : []));
        const needs = recordNeeds(info, ctx.caller, ['latestDecision']);
        const decisions = ids.length > 0 ? await findRecordsByIds(ctx.db.sql, board.agentId, ids, needs) : [];
        const byId = new Map(decisions.map((d) => [d.id, d]));
        return board.instruments.map((i) => ({
          ...i,
          decision: i.latestDecisionId ? byId.get(i.latestDecisionId) : undefined,
        }));
      },
    }),
  }),
});

const FreshIntervalRef = builder.objectRef<FreshInterval>('FreshInterval').implement({
  fields: (t) => ({
    from: t.expose('from', { type: 'DateTime' }),
    to: t.expose('to', { type: 'DateTime' }),
    memoryId: t.expose('memoryId', { type: 'UUID' }),
    corrected: t.exposeBoolean('corrected', {
      description: 'The record was corrected (C6) before the range’s end.',
    }),
  }),
});

const TimelineLaneRef = builder.objectRef<WithProducer<TimelineLaneView>>('TimelineLane').implement({
  fields: (t) => ({
    producer: t.field({ type: ProducerRef, resolve: (l) => l.producer }),
    type: t.exposeString('type'),
    intervals: t.field({
      type: [FreshIntervalRef],
      description: 'When the group’s then-latest record was FRESH, oldest first; gaps are gaps.',
      resolve: (l) => l.intervals,
    }),
  }),
});

const FreshnessTimelineRef = builder.objectRef<TimelineAnswer>('FreshnessTimeline').implement({
  fields: (t) => ({
    instrument: t.exposeString('instrument'),
    lanes: t.field({ type: [TimelineLaneRef], resolve: (tl) => tl.lanes }),
    decisions: t.field({
      type: [MemoryRef],
      description: 'The instrument’s trading decisions in the range, oldest first (at most 1,000).',
      resolve: (tl, _args, ctx, info) =>
        findRecordsByIds(ctx.db.sql, tl.agentId, tl.decisionIds, recordNeeds(info, ctx.caller)),
    }),
  }),
});

builder.queryFields((t) => ({
  freshnessBoard: t.withAuth(insightReaders.authScopes).field({
    unauthorizedError: insightReaders.unauthorizedError,
    type: FreshnessBoardRef,
    description:
      'B9 at `at` (default now). Operators and Review runs imply their agent; admin passes agentId.',
    args: { agentId: t.arg({ type: 'UUID' }), at: t.arg({ type: 'DateTime' }) },
    resolve: async (_root, args, ctx): Promise<BoardAnswer> => {
      const agentId = agentForRead(ctx.caller, args.agentId);
      const board = await loadFreshnessBoard(ctx.db, agentId, args.at ?? ctx.now());
      const producers = await producersOf(ctx.db, agentId);
      return {
        ...board,
        instruments: board.instruments.map((i) => ({ ...i, groups: attach(i.groups, producers) })),
      };
    },
  }),
  freshnessTimeline: t.withAuth(insightReaders.authScopes).field({
    unauthorizedError: insightReaders.unauthorizedError,
    type: FreshnessTimelineRef,
    description: `B9 over [from, to): at most 7 days and 5,000 records of the instrument, else BAD_USER_INPUT.`,
    args: {
      agentId: t.arg({ type: 'UUID' }),
      instrument: t.arg.string({ required: true }),
      from: t.arg({ type: 'DateTime', required: true }),
      to: t.arg({ type: 'DateTime', required: true }),
    },
    resolve: async (_root, args, ctx): Promise<TimelineAnswer> => {
      const agentId = agentForRead(ctx.caller, args.agentId);
      requireStorableText([['instrument', args.instrument]]); // W10
      const timeline = await loadFreshnessTimeline(ctx.db, { ...args, agentId });
      const producers = await producersOf(ctx.db, agentId);
      return { ...timeline, lanes: attach(timeline.lanes, producers) };
    },
  }),
}));

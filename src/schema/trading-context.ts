// The trading context (C1–C10) and the decision audit (T3): what an agent knew for an instrument at an instant.
import { agentFilter, agentForRead } from '../auth/access.js';
import { isUnverified } from '../auth/caller.js';
import { requireStorableText } from '../domain/errors.js';
import type { ContextResearch } from '../domain/trading-context.js';
import {
  loadTradingContext,
  type ContextCorrectionView,
  type ContextEntryView,
  type TradingContextView,
} from '../service/trading-context.js';
import type { ContextQuery } from '../store/trading-context.js';
import { findDecisionForAudit, type DecisionForAudit } from '../store/decision-audit.js';
import { findRecord, findRecordsByIds, listLearnings } from '../records/record-reads.js';
import type { Database } from '../store/db.js';
import { instrumentStanding } from '../store/instruments.js';
import { builder, checksTheTokenItself, needs } from './builder.js';
import { MemoryScopeEnum } from './enums.js';
import { MemoryLinkRef, MemoryRef, ProvenanceRef } from './memory.js';
import { recordNeeds } from './record-needs.js';

const ContextStatusEnum = builder.enumType('ContextStatus', {
  description: 'C3: DISABLED if the producer is disabled at `at`, else STALE if expired at `at`, else FRESH.',
  values: ['FRESH', 'STALE', 'DISABLED'] as const,
});

const CorrectionStatusEnum = builder.enumType('CorrectionStatus', {
  description: 'C7: FRESH while an original is current and its own expiry has not passed.',
  values: ['FRESH', 'STALE', 'SUPERSEDED'] as const,
});

/** A context being answered: the entries and corrections load once, on first use, for every field that needs them. */
interface TradingContextSource extends ContextQuery {
  view(): Promise<TradingContextView>;
  standing(): Promise<{ known: boolean; selected: boolean }>;
}

function contextSource(
  db: Database,
  query: ContextQuery,
  loaded?: Promise<TradingContextView>,
): TradingContextSource {
  let standing: Promise<{ known: boolean; selected: boolean }> | undefined;
  return {
    ...query,
    view: () => (loaded ??= loadTradingContext(db, query)),
    standing: () => (standing ??= instrumentStanding(db, query.agentId, query.instrument)),
  };
}

const ResearchRef = builder.objectRef<ContextResearch>('Research').implement({
  description: 'The complete research of a FRESH entry or correction (C4).',
  fields: (t) => ({
    content: t.exposeString('content'),
    metadata: t.expose('metadata', { type: 'JSON' }),
    timeframe: t.exposeString('timeframe', { nullable: true }),
    instruments: t.exposeStringList('instruments'),
    links: t.field({ type: [MemoryLinkRef], resolve: (research) => research.links }),
  }),
});

const ContextEntryRef = builder.objectRef<ContextEntryView>('ContextEntry').implement({
  description: 'The latest Analysis record of one (producer, type, scope) group (C2).',
  fields: (t) => ({
    memoryId: t.expose('memoryId', { type: 'UUID' }),
    type: t.exposeString('type'),
    scope: t.expose('scope', { type: MemoryScopeEnum }),
    status: t.expose('status', { type: ContextStatusEnum }),
    provenance: t.field({ type: ProvenanceRef, resolve: (entry) => entry.provenance }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', nullable: true }),
    expiryPolicy: t.exposeString('expiryPolicy', { nullable: true }),
    research: t.field({
      type: ResearchRef,
      nullable: true,
      description: 'Null unless status is FRESH (C4).',
      resolve: (entry) => entry.research,
    }),
  }),
});

const ContextCorrectionRef = builder.objectRef<ContextCorrectionView>('ContextCorrection').implement({
  description: 'The latest correction of one (producer, scope, target set) group (C6, C7).',
  fields: (t) => ({
    memoryId: t.expose('memoryId', { type: 'UUID' }),
    type: t.exposeString('type'),
    scope: t.expose('scope', { type: MemoryScopeEnum }),
    status: t.expose('status', { type: CorrectionStatusEnum }),
    correctionTargetIds: t.expose('correctionTargetIds', {
      type: ['UUID'],
      description: 'The records it corrects (its `corrects` links), sorted.',
    }),
    provenance: t.field({ type: ProvenanceRef, resolve: (correction) => correction.provenance }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    expiresAt: t.expose('expiresAt', {
      type: 'DateTime',
      nullable: true,
      description: 'min(own expiry, latest expiry among its current originals) (C7).',
    }),
    research: t.field({
      type: ResearchRef,
      nullable: true,
      description: 'Null unless status is FRESH (C7).',
      resolve: (correction) => correction.research,
    }),
  }),
});

const TradingContextRef = builder.objectRef<TradingContextSource>('TradingContext').implement({
  description: 'What the agent knew about one instrument at `at` (C1–C10).',
  fields: (t) => ({
    agentId: t.expose('agentId', { type: 'UUID' }),
    instrument: t.exposeString('instrument'),
    at: t.expose('at', { type: 'DateTime' }),
    known: t.boolean({
      description:
        'M11: the instrument is in the catalog (V1: exact, case-sensitive); false ⇒ an empty context.',
      resolve: async (context) => (await context.standing()).known,
    }),
    selected: t.boolean({
      description: 'M11: the agent selects the instrument now (an unselected one keeps its history, C5).',
      resolve: async (context) => (await context.standing()).selected,
    }),
    entries: t.field({
      type: [ContextEntryRef],
      description: 'FRESH first, then the rest; newest first inside each part (C4).',
      resolve: async (context) => (await context.view()).entries,
    }),
    corrections: t.field({
      type: [ContextCorrectionRef],
      resolve: async (context) => (await context.view()).corrections,
    }),
    learnings: t.field({
      type: [MemoryRef],
      description:
        'The agent’s agent_learnings, agent-wide or for this instrument, newest first, at most 20 (C10).',
      // One statement with what the selection needs.
      resolve: (context, _args, ctx, info) =>
        listLearnings(ctx.db.sql, context, recordNeeds(info, ctx.caller)),
    }),
  }),
});

builder.queryField('tradingContext', (t) =>
  t.withAuth({ context: true }).field({
    // Its statement checks the token itself (RequestCaller.readLive): no `live` scope first (S14).
    ...checksTheTokenItself,
    type: TradingContextRef,
    description:
      'The trading context of one agent for one instrument as of `at` (default now; C1–C10). Run and operator tokens imply their agent; admin passes agentId.',
    args: {
      agentId: t.arg({ type: 'UUID' }),
      instrument: t.arg.string({ required: true }),
      at: t.arg({ type: 'DateTime' }),
    },
    resolve: async (_root, args, ctx) => {
      const agentId = agentForRead(ctx.caller, args.agentId);
      requireStorableText([['instrument', args.instrument]]); // W10
      // C5: an unknown or unselected instrument is simply an empty context.
      const query = { agentId, instrument: args.instrument, at: args.at ?? ctx.now() };
      if (!isUnverified(ctx.caller)) return contextSource(ctx.db, query);
      // A remembered token: the context's statement checks it, before any field (learnings) reads.
      const view = await ctx.auth.readLive(
        (liveness) => loadTradingContext(ctx.db, query, liveness),
        ({ entries, corrections }) => entries.length === 0 && corrections.length === 0,
      );
      return contextSource(ctx.db, query, Promise.resolve(view));
    },
  }),
);

export const DecisionAuditRef = builder.objectRef<DecisionForAudit>('DecisionAudit').implement({
  description: 'A trading decision, everything it links and the context as of its createdAt (T3).',
  fields: (t) => ({
    decision: t.field({
      type: MemoryRef,
      resolve: async (audit, _args, ctx, info) => {
        const decision = await findRecord(ctx.db.sql, audit.id, recordNeeds(info, ctx.caller), {
          agentId: audit.agentId,
        });
        if (!decision) throw new Error(`decision ${audit.id} is no longer stored`); // as findUniqueOrThrow did
        return decision;
      },
    }),
    linked: t.field({
      type: [MemoryRef],
      description: 'Every record the decision links, in link order (each once).',
      resolve: (audit, _args, ctx, info) =>
        findRecordsByIds(ctx.db.sql, audit.agentId, audit.linkedIds, recordNeeds(info, ctx.caller)),
    }),
    contexts: t.field({
      type: [TradingContextRef],
      description:
        'One trading context per instrument the decision targets (in written order), as of its createdAt (C9); empty for an agent-wide decision.',
      resolve: (audit, _args, ctx) =>
        audit.instruments.map((instrument) =>
          contextSource(ctx.db, { agentId: audit.agentId, instrument, at: audit.createdAt }),
        ),
    }),
  }),
});

builder.queryField('decisionAudit', (t) =>
  // T3: Trading and Analysis runs may not audit.
  t.withAuth(needs('audit').authScopes).field({
    unauthorizedError: needs('audit').unauthorizedError,
    type: DecisionAuditRef,
    nullable: true,
    description: 'T3: null when the id is not a trading_decision readable by this token.',
    args: { decisionId: t.arg({ type: 'UUID', required: true }) },
    resolve: (_root, { decisionId }, ctx) =>
      // T3: operators and Review runs audit their own agent's decisions, the admin any agent's.
      findDecisionForAudit(ctx.db, decisionId, agentFilter(ctx.caller)),
  }),
);

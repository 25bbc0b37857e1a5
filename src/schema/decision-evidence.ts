// B10: DecisionAudit.considered — each considered record's freshness at the decision and now, and
// whether (and why not) it was in the decision instrument's context at that instant.
import { judgeConsidered, type ConsideredView } from '../service/decision-evidence.js';
import { findRecordsByIds } from '../records/record-reads.js';
import { builder } from './builder.js';
import { FreshnessEnum } from './enums.js';
import { FreshnessStateEnum } from './freshness.js';
import { MemoryRef } from './memory.js';
import { recordNeeds } from './record-needs.js';
import { DecisionAuditRef } from './trading-context.js';

type ConsideredAnswer = ConsideredView & {
  memory: Awaited<ReturnType<typeof findRecordsByIds>>[number] | null;
};

const ConsideredEvidenceRef = builder.objectRef<ConsideredAnswer>('ConsideredEvidence').implement({
  description: 'B10: one record the decision linked as `considered`.',
  fields: (t) => ({
    memoryId: t.expose('memoryId', { type: 'UUID' }),
    memory: t.field({ type: MemoryRef, nullable: true, resolve: (c) => c.memory }),
    freshnessAtDecision: t.expose('freshnessAtDecision', {
      type: FreshnessStateEnum,
      description: 'Its status in the context at the decision’s createdAt, else its own freshness then.',
    }),
    freshnessNow: t.expose('freshnessNow', { type: FreshnessEnum }),
    inContextAtDecision: t.exposeBoolean('inContextAtDecision', {
      description: 'A FRESH entry or correction of the decision instrument’s context at its createdAt (C9).',
    }),
    notInContextReason: t.exposeString('notInContextReason', {
      nullable: true,
      description:
        'other_instrument, not_research, superseded (a newer record of its group, or a correction no longer listed), stale (listed STALE or DISABLED), correction_original (a FRESH correction of it was listed).',
    }),
  }),
});

builder.objectField(DecisionAuditRef, 'considered', (t) =>
  t.field({
    type: [ConsideredEvidenceRef],
    description: 'B10: the records it links as `considered`, in link order, judged at its createdAt.',
    resolve: async (audit, _args, ctx, info) => {
      const verdicts = await judgeConsidered(ctx.db, audit, ctx.now());
      const ids = verdicts.map((v) => v.memoryId);
      const records = await findRecordsByIds(
        ctx.db.sql,
        audit.agentId,
        ids,
        recordNeeds(info, ctx.caller, ['memory']),
      );
      const byId = new Map(records.map((r) => [r.id, r]));
      return verdicts.map((v) => ({ ...v, memory: byId.get(v.memoryId) ?? null }));
    },
  }),
);

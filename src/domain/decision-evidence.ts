// B10: what a decision's considered record was in the decision instrument's trading context at the
// decision's createdAt — pure, over the contexts the context's own rule reconstructed (C9).
import { freshnessAt } from './expiry.js';
import type { ContextStatus, CorrectionStatus } from './trading-context.js';
import type { MemoryScope, RunKind } from './types.js';

export type EvidenceFreshness = 'FRESH' | 'STALE' | 'DISABLED';
export type NotInContextReason =
  'other_instrument' | 'not_research' | 'superseded' | 'stale' | 'correction_original';

export interface ConsideredRecord {
  id: string;
  runKind: RunKind | null;
  scope: MemoryScope;
  instruments: readonly string[];
  expiresAt: Date | null;
}

/** One context of the decision (an instrument it targets) as of its createdAt. */
export interface ContextAtDecision {
  entries: readonly { memoryId: string; status: ContextStatus }[];
  corrections: readonly {
    memoryId: string;
    status: CorrectionStatus;
    correctionTargetIds: readonly string[];
  }[];
}

export interface EvidenceVerdict {
  freshnessAtDecision: EvidenceFreshness;
  inContextAtDecision: boolean;
  notInContextReason: NotInContextReason | null;
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * B10: in context ⇔ a FRESH entry or correction of one of the decision's contexts. Otherwise why:
 * a FRESH original beside a FRESH correction of it (`correction_original`), kept but STALE or
 * DISABLED (`stale`), not the kept record of its group or a correction no longer listed
 * (`superseded`), not Analysis research (`not_research`), or none of the decision's instruments
 * (`other_instrument`). Freshness at the decision is the context's status when listed, else the
 * record's own freshness then.
 */
export function judgeEvidence(
  record: ConsideredRecord,
  decision: { createdAt: Date; instruments: readonly string[] },
  contexts: readonly ContextAtDecision[],
): EvidenceVerdict {
  const own = freshnessAt(record.expiresAt, decision.createdAt);
  const verdict = (freshness: EvidenceFreshness, reason: NotInContextReason | null): EvidenceVerdict => ({
    freshnessAtDecision: freshness,
    inContextAtDecision: reason === null,
    notInContextReason: reason,
  });
  const entries = contexts.flatMap((c) => c.entries.filter((e) => same(e.memoryId, record.id)));
  const corrections = contexts.flatMap((c) => c.corrections);
  const fresh = entries.find((e) => e.status === 'FRESH');
  if (fresh) {
    const corrected = corrections.some(
      (c) => c.status === 'FRESH' && c.correctionTargetIds.some((id) => same(id, record.id)),
    );
    return verdict('FRESH', corrected ? 'correction_original' : null);
  }
  if (entries[0]) return verdict(entries[0].status, 'stale');
  const asCorrection = corrections.filter((c) => same(c.memoryId, record.id));
  if (asCorrection.some((c) => c.status === 'FRESH')) return verdict('FRESH', null);
  if (asCorrection.some((c) => c.status === 'STALE')) return verdict('STALE', 'stale');
  if (asCorrection.length > 0) return verdict(own, 'superseded');
  if (record.runKind !== 'ANALYSIS') return verdict(own, 'not_research');
  const targetsDecision =
    record.scope === 'AGENT' || record.instruments.some((i) => decision.instruments.includes(i));
  return verdict(own, targetsDecision && contexts.length > 0 ? 'superseded' : 'other_instrument');
}

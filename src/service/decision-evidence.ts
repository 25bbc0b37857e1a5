// B10: each considered record of a decision judged against the decision instrument's trading
// context at the decision's createdAt (the context's own use case, C9).
import { judgeEvidence, type EvidenceVerdict } from '../domain/decision-evidence.js';
import { freshnessAt, type Freshness } from '../domain/expiry.js';
import type { Database } from '../store/db.js';
import type { DecisionForAudit } from '../store/decision-audit.js';
import { loadTradingContext } from './trading-context.js';

export interface ConsideredView extends EvidenceVerdict {
  memoryId: string;
  /** Its freshness now (B10: "as well as now"). */
  freshnessNow: Freshness;
}

/** B10: the decision's considered records in link order, each with its verdict. */
export async function judgeConsidered(
  db: Database,
  audit: DecisionForAudit,
  now: Date,
): Promise<ConsideredView[]> {
  if (audit.consideredIds.length === 0) return [];
  const [records, contexts] = await Promise.all([
    db.prisma.memory.findMany({
      where: { agentId: audit.agentId, id: { in: audit.consideredIds } },
      select: {
        id: true,
        runKind: true,
        scope: true,
        expiresAt: true,
        targets: { select: { instrumentId: true } },
      },
    }),
    Promise.all(
      audit.instruments.map((instrument) =>
        loadTradingContext(db, { agentId: audit.agentId, instrument, at: audit.createdAt }),
      ),
    ),
  ]);
  const byId = new Map(records.map((r) => [r.id, r]));
  return audit.consideredIds.flatMap((id) => {
    const record = byId.get(id);
    if (!record) return [];
    const verdict = judgeEvidence(
      { ...record, instruments: record.targets.map((t) => t.instrumentId) },
      audit,
      contexts,
    );
    return [{ memoryId: id, ...verdict, freshnessNow: freshnessAt(record.expiresAt, now) }];
  });
}

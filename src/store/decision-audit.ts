// T3: the decision an audit is about — its targets and the records it links — read on its agent's
// shard; ../service/decision-evidence.ts reads those records as they were at the decision.
import { CONSIDERED, TRADING_DECISION } from '../domain/write-validation.js';
import { agentOfRecord } from './any-agent.js';
import type { Database } from './db.js';

/** T3: what an audit needs to know about a decision; null when it is not a readable trading_decision. */
export interface DecisionForAudit {
  id: string;
  agentId: string;
  createdAt: Date;
  /** The instruments the decision targets, in written order (none for an agent-wide decision). */
  instruments: string[];
  /** Every record the decision links, in link order, each once. */
  linkedIds: string[];
  /** T1, B10: the records it links as `considered`, in link order, each once. */
  consideredIds: string[];
}

export async function findDecisionForAudit(
  db: Database,
  decisionId: string,
  readable: { agentId?: string },
): Promise<DecisionForAudit | null> {
  // D2: the admin names a decision without its agent: its key is probed per agent first.
  const agentId = readable.agentId ?? (await agentOfRecord(db.sql, decisionId));
  if (agentId === null) return null;
  const decision = await db.prisma.memory.findUnique({
    where: { agentId_id: { agentId, id: decisionId }, type: TRADING_DECISION },
    select: {
      id: true,
      agentId: true,
      createdAt: true,
      targets: { select: { instrumentId: true }, orderBy: { position: 'asc' } },
      links: { select: { targetMemoryId: true, linkType: true }, orderBy: { position: 'asc' } },
    },
  });
  if (!decision) return null;
  return {
    id: decision.id,
    agentId: decision.agentId,
    createdAt: decision.createdAt,
    instruments: decision.targets.map((t) => t.instrumentId),
    linkedIds: [...new Set(decision.links.map((l) => l.targetMemoryId))],
    consideredIds: [
      ...new Set(decision.links.filter((l) => l.linkType === CONSIDERED).map((l) => l.targetMemoryId)),
    ],
  };
}

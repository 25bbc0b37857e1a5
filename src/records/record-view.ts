// A record as the REST mirror and the demo output show it (snake_case), from the one record shape.
import { freshnessAt } from '../domain/expiry.js';
import { toProvenance, type MemoryRecord } from './record-shape.js';

/** The REST (snake_case) view of a record. */
export function toMemoryView(row: MemoryRecord, now: Date) {
  const provenance = row.sourceRun && toProvenance(row.sourceRun);
  return {
    id: row.id,
    agent_id: row.agentId,
    type: row.type,
    scope: row.scope,
    instruments: row.targets.map((t) => t.instrumentId),
    content: row.content,
    metadata: row.metadata,
    timeframe: row.timeframe,
    created_at: row.createdAt.toISOString(),
    expires_at: row.expiresAt?.toISOString() ?? null,
    expiry_policy: row.expiryPolicy,
    freshness: freshnessAt(row.expiresAt, now),
    provenance: provenance && {
      run_id: provenance.runId,
      producer_id: provenance.producerId,
      producer_name: provenance.producerName,
      kind: provenance.kind,
      schedule: provenance.schedule,
      evidence_boundary: provenance.evidenceBoundary?.toISOString() ?? null,
      run_status: provenance.runStatus,
    },
    links: row.links.map((l) => ({ target_memory_id: l.targetMemoryId, link_type: l.linkType })),
  };
}

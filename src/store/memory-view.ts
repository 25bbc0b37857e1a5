// A record with everything the Memory type shows, for callers outside GraphQL (REST, demo output).
import { freshnessAt } from '../domain/expiry.js';
import type { Database } from './db.js';
import type { Memory } from './generated/prisma/client.js';

export async function loadMemoryView(db: Database, id: string, now: Date) {
  const row = await db.prisma.memory.findUnique({
    where: { id },
    include: {
      targets: { select: { instrumentId: true }, orderBy: { position: 'asc' } },
      links: { select: { linkType: true, targetMemoryId: true }, orderBy: { position: 'asc' } },
      sourceRun: { include: { producer: { select: { name: true } } } },
    },
  });
  if (!row) return null;
  return toMemoryView(row, now);
}

type ViewRow = Pick<
  Memory,
  | 'id'
  | 'agentId'
  | 'type'
  | 'scope'
  | 'content'
  | 'metadata'
  | 'timeframe'
  | 'createdAt'
  | 'expiresAt'
  | 'expiryPolicy'
> & {
  targets: { instrumentId: string }[];
  links: { linkType: string; targetMemoryId: string }[];
  sourceRun: {
    id: string;
    producerId: string;
    kind: string;
    schedule: string | null;
    evidenceBoundary: Date | null;
    status: string;
    producer: { name: string };
  } | null;
};

/** The REST (snake_case) view of a record. */
export function toMemoryView(row: ViewRow, now: Date) {
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
    provenance: row.sourceRun
      ? {
          run_id: row.sourceRun.id,
          producer_id: row.sourceRun.producerId,
          producer_name: row.sourceRun.producer.name,
          kind: row.sourceRun.kind,
          schedule: row.sourceRun.schedule,
          evidence_boundary: row.sourceRun.evidenceBoundary?.toISOString() ?? null,
          run_status: row.sourceRun.status,
        }
      : null,
    links: row.links.map((l) => ({ target_memory_id: l.targetMemoryId, link_type: l.linkType })),
  };
}

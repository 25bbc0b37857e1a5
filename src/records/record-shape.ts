// The one shape of a stored record: every column, its targets and links in written order, and the
// run that wrote it. Its TypeScript type is derived from the select, never redeclared.
import type { Provenance } from '../domain/types.js';
import type { Prisma } from '../store/generated/prisma/client.js';

/** The run columns a record's provenance shows (§1). */
export const provenanceSelect = {
  id: true,
  producerId: true,
  kind: true,
  schedule: true,
  evidenceBoundary: true,
  status: true,
  producer: { select: { name: true } },
} as const satisfies Prisma.RunSelect;

export const instrumentsSelect = {
  select: { instrumentId: true },
  orderBy: { position: 'asc' },
} as const satisfies Prisma.Memory$targetsArgs;

export const linksSelect = {
  select: { linkType: true, targetMemoryId: true },
  orderBy: { position: 'asc' },
} as const satisfies Prisma.Memory$linksArgs;

export const memoryRecordSelect = {
  id: true,
  agentId: true,
  type: true,
  scope: true,
  content: true,
  metadata: true,
  timeframe: true,
  sourceRunId: true,
  producerId: true,
  runKind: true,
  isCorrection: true,
  createdAt: true,
  expiresAt: true,
  expiryPolicy: true,
  idempotencyKey: true,
  requestHash: true,
  targets: instrumentsSelect,
  links: linksSelect,
  sourceRun: { select: provenanceSelect },
} as const satisfies Prisma.MemorySelect;

export type MemoryRecord = Prisma.MemoryGetPayload<{ select: typeof memoryRecordSelect }>;

/** Who may read a record (agent, producer, type); an absent key does not restrict. */
export interface RecordReadFilter {
  agentId?: string;
  producerId?: string;
  type?: string;
}

/** A record's `linkedFrom` lists at most this many links to it: those of the newest sources. */
export const BACKLINKS_LIMIT = 100;

/**
 * The links to a record from records that `readable` may read (§1: a Trading run sees only its own
 * decisions link here), newest source first. Links never cross agents (W4, I3).
 */
export function backlinksArgs(readable: RecordReadFilter) {
  return {
    where: { memory: readable },
    orderBy: [{ memory: { createdAt: 'desc' } }, { memoryId: 'desc' }, { position: 'asc' }],
    take: BACKLINKS_LIMIT,
    select: { linkType: true, memory: { select: { id: true, type: true, createdAt: true } } },
  } as const satisfies Prisma.Memory$linkedByArgs;
}

export type Backlink = Prisma.MemoryLinkGetPayload<{ select: ReturnType<typeof backlinksArgs>['select'] }>;
export type ProvenanceRun = Prisma.RunGetPayload<{ select: typeof provenanceSelect }>;

export function toProvenance(run: ProvenanceRun): Provenance {
  return {
    runId: run.id,
    producerId: run.producerId,
    producerName: run.producer.name,
    kind: run.kind,
    schedule: run.schedule,
    evidenceBoundary: run.evidenceBoundary,
    runStatus: run.status,
  };
}

// The record write's shared parts: the row it stores, its parameters by name, and the checks both
// write forms run (W2, W4, W5, W9) — the one statement (./record-write.ts) embeds them as CTEs, the
// routable transaction (./routable-write.ts) sends them as one SELECT.
import { isCorrection } from '../domain/write-validation.js';
import type { JsonObject, MemoryLink, MemoryScope, RunKind } from '../domain/types.js';

/** One stored record as the write statement takes it; link target ids are lowercase. */
export interface MemoryInsert {
  id: string;
  agentId: string;
  type: string;
  scope: MemoryScope;
  content: string;
  metadata: JsonObject;
  timeframe: string | null;
  sourceRunId: string | null;
  producerId: string | null;
  runKind: RunKind | null;
  createdAt: Date;
  expiresAt: Date | null;
  expiryPolicy: string | null;
  idempotencyKey: string | null;
  requestHash: string | null;
  instruments: string[];
  links: MemoryLink[];
}

/** The write statement's parameters, in `$n` order. */
export const INSERT_PARAMS = [
  'id',
  'agentId',
  'type',
  'scope',
  'content',
  'metadata',
  'timeframe',
  'sourceRunId',
  'producerId',
  'runKind',
  'isCorrection',
  'createdAt',
  'expiresAt',
  'expiryPolicy',
  'idempotencyKey',
  'requestHash',
  'instruments',
  'linkTargets',
  'linkTypes',
] as const;
export type InsertParam = (typeof INSERT_PARAMS)[number];
type P = Readonly<Record<InsertParam, string>>;

/** Which instruments a record may target: writes need selected, active ones (W2); imports only catalog ones (I2). */
export const TARGETABLE = {
  write: (p: Pick<P, 'agentId' | 'instruments'>) => `SELECT coalesce(array_agg(s."instrumentId"), '{}') AS ids
    FROM "AgentInstrument" s JOIN "Instrument" i ON i.id = s."instrumentId"
   WHERE s."agentId" = ${p.agentId} AND s."deselectedAt" IS NULL AND i.active
     AND s."instrumentId" = ANY(${p.instruments}::text[])`,
  import: (p: Pick<P, 'instruments'>) =>
    `SELECT coalesce(array_agg(i.id), '{}') AS ids FROM "Instrument" i WHERE i.id = ANY(${p.instruments}::text[])`,
};

/**
 * W9 for writes: the writing run's row is read FOR SHARE, so the insert sees its committed status and
 * a concurrent finishRun (which takes the row FOR UPDATE) waits until this write has committed.
 * Imports name historic runs and check nothing about their status.
 */
export const WRITER = {
  write: (p: Pick<P, 'agentId' | 'sourceRunId'>) =>
    `SELECT r.status::text AS status FROM "Run" r WHERE r."agentId" = ${p.agentId} AND r.id = ${p.sourceRunId} FOR SHARE`,
  import: () => `SELECT 'RUNNING'::text AS status`,
};

/** W5: the link targets that are records of the agent, as text. */
export const LINKABLE = (p: Pick<P, 'agentId' | 'linkTargets'>) =>
  `SELECT coalesce(array_agg(m.id::text), '{}') AS ids FROM "Memory" m
   WHERE m."agentId" = ${p.agentId} AND m.id = ANY(${p.linkTargets}::uuid[])`;

/** What the checks found: the run's status (W9) and the valid references (W2, W4, W5). */
export interface InsertChecks {
  run_status: string | null;
  selected: string[];
  linkable: string[];
}

/** When the checks returned no row: no run, nothing valid. */
export const NOTHING_CHECKED: InsertChecks = Object.freeze({ run_status: null, selected: [], linkable: [] });

/** The bind values every form of the write shares, by parameter name. */
export function insertValues(row: MemoryInsert): Record<InsertParam, unknown> {
  return {
    ...row,
    metadata: JSON.stringify(row.metadata),
    isCorrection: isCorrection(row.links),
    linkTargets: row.links.map((link) => link.targetMemoryId),
    linkTypes: row.links.map((link) => link.linkType),
  };
}

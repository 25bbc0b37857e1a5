// The trading context's reads (C1–C10, T3). ONE indexed statement returns the candidates (C1, the
// latest of each group by index probes, C2, the corrections, C6) with provenance, producer enablement
// at `at` and the research of the unexpired ones; the pure decision in ../domain/trading-context.ts
// decides status and projection (C2–C7). Learnings (C10) are Memory records, read through Prisma.
import {
  decideTradingContext,
  type ContextCandidate,
  type ContextStatus,
  type CorrectionCandidate,
  type CorrectionStatus,
} from '../domain/trading-context.js';
import type { MemoryScope, RunKind } from '../domain/types.js';
import type { Database } from './db.js';
import { Prisma } from './generated/prisma/client.js';

export const TRADING_DECISION = 'trading_decision';
export const AGENT_LEARNINGS = 'agent_learnings';
/** C10: at most this many learnings are listed. */
export const LEARNINGS_LIMIT = 20;

export interface ContextQuery {
  agentId: string;
  instrument: string;
  /** C9: the instant the context is reconstructed for. */
  at: Date;
}

/** The run that wrote a record; the same shape as the GraphQL `Provenance`. */
export interface ContextProvenance {
  runId: string;
  producerId: string;
  producerName: string;
  kind: RunKind;
  schedule: string | null;
  evidenceBoundary: Date | null;
  runStatus: 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED';
}

/** C4: the complete research of a FRESH entry or correction. */
export interface ContextResearch {
  content: string;
  metadata: unknown;
  timeframe: string | null;
  instruments: string[];
  links: { linkType: string; targetMemoryId: string }[];
}

export interface ContextEntryView {
  memoryId: string;
  type: string;
  scope: MemoryScope;
  status: ContextStatus;
  provenance: ContextProvenance;
  createdAt: Date;
  expiresAt: Date | null;
  expiryPolicy: string | null;
  research: ContextResearch | null;
}

export interface ContextCorrectionView {
  memoryId: string;
  type: string;
  scope: MemoryScope;
  status: CorrectionStatus;
  correctionTargetIds: string[];
  provenance: ContextProvenance;
  createdAt: Date;
  /** C7: min(own expiry, latest expiry among its current originals). */
  expiresAt: Date | null;
  research: ContextResearch | null;
}

export interface TradingContextView {
  entries: ContextEntryView[];
  corrections: ContextCorrectionView[];
}

// Each statement returns its rows as ONE json value of arrays (instants as epoch milliseconds): one
// JSON.parse instead of per-value type parsing keeps the Node side cheap for hundreds of rows.

/** A kept entry (C2) or a correction candidate (C6), as the candidate statement returns it. */
type CandidateTuple = [
  id: string,
  producerId: string,
  type: string,
  scope: MemoryScope,
  createdAt: number,
  expiresAt: number | null,
  expiryPolicy: string | null,
  isCorrection: boolean,
  runId: string,
  runKind: RunKind,
  schedule: string | null,
  evidenceBoundary: number | null,
  runStatus: ContextProvenance['runStatus'],
  producerName: string,
  /** Entries only: the producer's enablement at `at` (null: no change recorded yet ⇒ enabled). */
  enabled: boolean | null,
  /** Corrections only: the targets of its `corrects` links. */
  correctionTargetIds: string[] | null,
  /** Only for records not expired at `at`: the research a FRESH status shows. */
  research: ResearchTuple | null,
];

type ResearchTuple = [
  content: string,
  metadata: unknown,
  timeframe: string | null,
  instruments: string[],
  links: { linkType: string; targetMemoryId: string }[],
];

/** What the decision needs, plus what the answer shows of every kept record. */
interface Shown {
  provenance: ContextProvenance;
  expiryPolicy: string | null;
  research: ContextResearch | null;
}
type EntryCandidate = ContextCandidate & Shown;
type CorrectionRowCandidate = CorrectionCandidate & Shown;

function epochMs(column: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`(extract(epoch FROM ${column}) * 1000)::bigint`;
}

/**
 * C1 + C2 + C6 candidates in one statement. Kept entries: a recursive skip scan over the context
 * index visits each (producer, type) group once and reads its newest record; when that one was
 * created after `at` (C9) a second probe finds the latest at or before `at` (instrument-targeting
 * records from MemoryTarget, agent-wide ones from Memory). Corrections: every Analysis correction of
 * the same scope/instrument filter created by `at` (grouping by target set is the domain's, C6).
 * Each row carries its provenance (each run looked up once); entries their producer's enablement at
 * `at` (C3, C9); corrections their `corrects` targets; unexpired records their research (C4).
 */
function candidatesStatement({ agentId, instrument, at }: ContextQuery): Prisma.Sql {
  return Prisma.sql`
    WITH RECURSIVE
    instrument_group AS (
      (SELECT t."producerId", t.type, t."createdAt", t."memoryId" AS id FROM "MemoryTarget" t
        WHERE t."agentId" = ${agentId}::uuid AND t."instrumentId" = ${instrument}
          AND t."runKind" = 'ANALYSIS' AND t."isCorrection" = false
        ORDER BY t."producerId", t.type, t."createdAt" DESC, t."memoryId" DESC LIMIT 1)
      UNION ALL
      SELECT nxt.* FROM instrument_group g CROSS JOIN LATERAL (
        SELECT t."producerId", t.type, t."createdAt", t."memoryId" FROM "MemoryTarget" t
         WHERE t."agentId" = ${agentId}::uuid AND t."instrumentId" = ${instrument}
           AND t."runKind" = 'ANALYSIS' AND t."isCorrection" = false
           AND (t."producerId", t.type) > (g."producerId", g.type)
         ORDER BY t."producerId", t.type, t."createdAt" DESC, t."memoryId" DESC LIMIT 1) nxt
    ),
    agent_group AS (
      (SELECT m."producerId", m.type, m."createdAt", m.id FROM "Memory" m
        WHERE m."agentId" = ${agentId}::uuid AND m."runKind" = 'ANALYSIS' AND m.scope = 'AGENT'
          AND m."isCorrection" = false
        ORDER BY m."producerId", m.type, m."createdAt" DESC, m.id DESC LIMIT 1)
      UNION ALL
      SELECT nxt.* FROM agent_group g CROSS JOIN LATERAL (
        SELECT m."producerId", m.type, m."createdAt", m.id FROM "Memory" m
         WHERE m."agentId" = ${agentId}::uuid AND m."runKind" = 'ANALYSIS' AND m.scope = 'AGENT'
           AND m."isCorrection" = false AND (m."producerId", m.type) > (g."producerId", g.type)
         ORDER BY m."producerId", m.type, m."createdAt" DESC, m.id DESC LIMIT 1) nxt
    ),
    picked AS (
      SELECT CASE WHEN g."createdAt" <= ${at} THEN g.id ELSE (
               SELECT t."memoryId" FROM "MemoryTarget" t
                WHERE t."agentId" = ${agentId}::uuid AND t."instrumentId" = ${instrument}
                  AND t."runKind" = 'ANALYSIS' AND t."isCorrection" = false
                  AND t."producerId" = g."producerId" AND t.type = g.type AND t."createdAt" <= ${at}
                ORDER BY t."createdAt" DESC, t."memoryId" DESC LIMIT 1)
             END AS id, false AS "isCorrection"
        FROM instrument_group g
      UNION ALL
      SELECT CASE WHEN g."createdAt" <= ${at} THEN g.id ELSE (
               SELECT m.id FROM "Memory" m
                WHERE m."agentId" = ${agentId}::uuid AND m."runKind" = 'ANALYSIS' AND m.scope = 'AGENT'
                  AND m."isCorrection" = false AND m."producerId" = g."producerId" AND m.type = g.type
                  AND m."createdAt" <= ${at}
                ORDER BY m."createdAt" DESC, m.id DESC LIMIT 1)
             END, false
        FROM agent_group g
      UNION ALL
      SELECT t."memoryId", true FROM "MemoryTarget" t
       WHERE t."agentId" = ${agentId}::uuid AND t."instrumentId" = ${instrument}
         AND t."runKind" = 'ANALYSIS' AND t."isCorrection" = true AND t."createdAt" <= ${at}
      UNION ALL
      SELECT m.id, true FROM "Memory" m
       WHERE m."agentId" = ${agentId}::uuid AND m."runKind" = 'ANALYSIS' AND m.scope = 'AGENT'
         AND m."isCorrection" = true AND m."createdAt" <= ${at}
    ),
    -- C3/C9: each producer's latest enablement change at or before at (equal instants ⇒ its current state).
    producer AS MATERIALIZED (
      SELECT pr.id, pr.name, (
               SELECT e.enabled FROM "ProducerEnablement" e
                WHERE e."producerId" = pr.id AND e."changedAt" <= ${at}
                ORDER BY e."changedAt" DESC, (e.enabled = pr.enabled) DESC LIMIT 1) AS enabled
        FROM "Producer" pr
       WHERE pr."agentId" = ${agentId}::uuid
    ),
    row AS MATERIALIZED (
      SELECT m.id, m."sourceRunId", m."producerId", m.type, m.scope, m."createdAt", m."expiresAt", m."expiryPolicy",
             p."isCorrection", m.content, m.metadata, m.timeframe
        FROM picked p JOIN "Memory" m ON m.id = p.id
    ),
    -- A run usually publishes several records: look each run up once.
    run AS MATERIALIZED (
      SELECT r.id, r.kind, r.schedule, r."evidenceBoundary", r.status FROM "Run" r
       WHERE r.id IN (SELECT "sourceRunId" FROM row)
    )
    SELECT json_agg(json_build_array(
             m.id, m."producerId", m.type, m.scope, ${epochMs(Prisma.sql`m."createdAt"`)},
             ${epochMs(Prisma.sql`m."expiresAt"`)}, m."expiryPolicy", m."isCorrection",
             r.id, r.kind, r.schedule, ${epochMs(Prisma.sql`r."evidenceBoundary"`)}, r.status, pr.name,
             CASE WHEN NOT m."isCorrection" THEN pr.enabled END,
             CASE WHEN m."isCorrection" THEN ARRAY(
               SELECT l."targetMemoryId" FROM "MemoryLink" l
                WHERE l."memoryId" = m.id AND l."linkType" = 'corrects' ORDER BY l.position)
             END,
             -- C4: only a record unexpired at at can be shown FRESH, so only those carry their research.
             CASE WHEN m."expiresAt" IS NULL OR m."expiresAt" > ${at} THEN json_build_array(
               m.content, m.metadata, m.timeframe,
               ARRAY(SELECT t."instrumentId" FROM "MemoryTarget" t WHERE t."memoryId" = m.id ORDER BY t.position),
               coalesce((SELECT json_agg(json_build_object('linkType', l."linkType", 'targetMemoryId', l."targetMemoryId")
                                         ORDER BY l.position)
                           FROM "MemoryLink" l WHERE l."memoryId" = m.id), '[]'))
             END)) AS rows
      FROM row m
      JOIN run r ON r.id = m."sourceRunId"
      JOIN producer pr ON pr.id = m."producerId"`;
}

const dateOf = (ms: number | null): Date | null => (ms === null ? null : new Date(ms));

/** The trading context of one agent for one instrument as of `at` (C1–C9); learnings are separate (C10). */
export async function loadTradingContext(db: Database, query: ContextQuery): Promise<TradingContextView> {
  const [result] = await db.prisma.$queryRaw<[{ rows: CandidateTuple[] | null }]>(candidatesStatement(query));
  const candidates: EntryCandidate[] = [];
  const corrections: CorrectionRowCandidate[] = [];
  const enabled = new Map<string, boolean>();
  for (const row of result?.rows ?? []) {
    const [id, producerId, type, scope, createdAt, expiresAt, expiryPolicy, isCorrection, ...rest] = row;
    const [runId, kind, schedule, evidenceBoundary, runStatus, producerName, on, targets, body] = rest;
    const base = {
      id,
      producerId,
      type,
      scope,
      createdAt: new Date(createdAt),
      expiresAt: dateOf(expiresAt),
      expiryPolicy,
      provenance: {
        runId,
        producerId,
        producerName,
        kind,
        schedule,
        evidenceBoundary: dateOf(evidenceBoundary),
        runStatus,
      },
      research: body && {
        content: body[0],
        metadata: body[1],
        timeframe: body[2],
        instruments: body[3],
        links: body[4],
      },
    };
    if (isCorrection) {
      corrections.push({ ...base, correctionTargetIds: targets ?? [] });
    } else {
      candidates.push(base);
      // No recorded change at `at` means the producer did not exist yet (legacy history): enabled.
      enabled.set(producerId, on ?? true);
    }
  }

  const decided = decideTradingContext({
    at: query.at,
    candidates,
    corrections,
    enabledAt: (producerId) => enabled.get(producerId) ?? true,
  });

  // C4/C7: research only with a FRESH status; a FRESH record is unexpired at `at`, so the statement returned it.
  const researchOf = (record: Shown & { id: string }, withResearch: boolean): ContextResearch | null => {
    if (!withResearch) return null;
    if (!record.research) throw new Error(`research of FRESH record ${record.id} was not loaded`);
    return record.research;
  };

  return {
    entries: decided.entries.map(({ record, status, withResearch }) => ({
      memoryId: record.id,
      type: record.type,
      scope: record.scope,
      status,
      provenance: record.provenance,
      createdAt: record.createdAt,
      expiresAt: record.expiresAt,
      expiryPolicy: record.expiryPolicy,
      research: researchOf(record, withResearch),
    })),
    corrections: decided.corrections.map(
      ({ record, status, expiresAt, correctionTargetIds, withResearch }) => ({
        memoryId: record.id,
        type: record.type,
        scope: record.scope,
        status,
        correctionTargetIds,
        provenance: record.provenance,
        createdAt: record.createdAt,
        expiresAt,
        research: researchOf(record, withResearch),
      }),
    ),
  };
}

/** C10: the agent's learnings (any writer kind), agent-wide or targeting the instrument, as of `at`, newest first. */
export function learningsQuery({ agentId, instrument, at }: ContextQuery) {
  return {
    where: {
      agentId,
      type: AGENT_LEARNINGS,
      createdAt: { lte: at },
      OR: [{ scope: 'AGENT' as const }, { targets: { some: { instrumentId: instrument } } }],
    },
    orderBy: [{ createdAt: 'desc' as const }, { id: 'desc' as const }],
    take: LEARNINGS_LIMIT,
  } satisfies Prisma.MemoryFindManyArgs;
}

/** T3: what an audit needs to know about a decision; null when it is not a readable trading_decision. */
export interface DecisionForAudit {
  id: string;
  agentId: string;
  createdAt: Date;
  /** The instruments the decision targets, in written order (none for an agent-wide decision). */
  instruments: string[];
  /** Every record the decision links, in link order, each once. */
  linkedIds: string[];
}

export async function findDecisionForAudit(
  db: Database,
  decisionId: string,
  readable: { agentId?: string },
): Promise<DecisionForAudit | null> {
  const decision = await db.prisma.memory.findFirst({
    where: { id: decisionId, type: TRADING_DECISION, ...readable },
    select: {
      id: true,
      agentId: true,
      createdAt: true,
      targets: { select: { instrumentId: true }, orderBy: { position: 'asc' } },
      links: { select: { targetMemoryId: true }, orderBy: { position: 'asc' } },
    },
  });
  if (!decision) return null;
  return {
    id: decision.id,
    agentId: decision.agentId,
    createdAt: decision.createdAt,
    instruments: decision.targets.map((t) => t.instrumentId),
    linkedIds: [...new Set(decision.links.map((l) => l.targetMemoryId))],
  };
}

// The trading context's reads (C1–C10, T3). ONE indexed statement returns the candidates (C1, the
// latest of each group by index probes, C2, the corrections, C6) with provenance, producer enablement
// at `at` and the research of the unexpired ones; ../service/trading-context.ts hands them to the pure
// decision. Learnings (C10) and the audited decision's records (T3) are read by ../records/record-reads.ts,
// the audited decision itself by ./decision-audit.ts.
import type { ContextCandidate, ContextResearch, CorrectionCandidate } from '../domain/trading-context.js';
import type { MemoryScope, Provenance, RunKind, RunStatus } from '../domain/types.js';
import { CORRECTS } from '../domain/write-validation.js';
import type { Database } from './db.js';
import { Prisma } from './generated/prisma/client.js';
import { livenessCondition, type TokenLiveness } from './tokens.js';

/** C10: at most this many learnings are listed. */
export const LEARNINGS_LIMIT = 20;

export interface ContextQuery {
  agentId: string;
  instrument: string;
  /** C9: the instant the context is reconstructed for. */
  at: Date;
}

/** What the decision needs, plus what the answer shows of every kept record. */
export interface Shown {
  provenance: Provenance;
  expiryPolicy: string | null;
  /** Only for records not expired at `at`: the research a FRESH status shows (C4). */
  research: ContextResearch | null;
}
export type EntryCandidate = ContextCandidate & Shown;
export type CorrectionRowCandidate = CorrectionCandidate & Shown;

export interface ContextCandidates {
  entries: EntryCandidate[];
  corrections: CorrectionRowCandidate[];
  /** C3/C9: each entry producer's enablement at `at`. */
  enabledAt: (producerId: string) => boolean;
}

/** One row of the candidate statement, by name (instants as epoch milliseconds, cheap to parse). */
interface CandidateRow {
  id: string;
  producerId: string;
  type: string;
  scope: MemoryScope;
  createdAt: number;
  expiresAt: number | null;
  expiryPolicy: string | null;
  isCorrection: boolean;
  runId: string;
  runKind: RunKind;
  schedule: string | null;
  evidenceBoundary: number | null;
  runStatus: RunStatus;
  producerName: string;
  /** Entries only: the producer's enablement at `at` (null: no change recorded yet ⇒ enabled). */
  enabled: boolean | null;
  /** Corrections only: the targets of its `corrects` links. */
  correctionTargetIds: string[] | null;
  research: ContextResearch | null;
}

const epochMs = (column: string) => Prisma.raw(`(extract(epoch FROM ${column}) * 1000)::bigint`);

/**
 * C1 + C2: the Analysis records of this context that can be entries (corrections are found through
 * the kept entries, C11) — instrument-targeting ones through MemoryTarget (alias t), agent-wide ones
 * from Memory (alias m).
 */
function entriesOf({ agentId, instrument }: ContextQuery, alias: 't' | 'm'): Prisma.Sql {
  return alias === 't'
    ? Prisma.sql`t."agentId" = ${agentId}::uuid AND t."instrumentId" = ${instrument}
        AND t."runKind" = 'ANALYSIS' AND t."isCorrection" = false`
    : Prisma.sql`m."agentId" = ${agentId}::uuid AND m."runKind" = 'ANALYSIS' AND m.scope = 'AGENT'
        AND m."isCorrection" = false`;
}

/**
 * One group scan of C2: a recursive skip scan over the context index visits each (producer, type)
 * group once and reads its newest record (`id` is the record's id under either alias).
 */
function latestPerGroup(query: ContextQuery, alias: 't' | 'm'): Prisma.Sql {
  const from = Prisma.raw(alias === 't' ? `"MemoryTarget" t` : `"Memory" m`);
  const cols = Prisma.raw(
    alias === 't'
      ? `t."producerId", t.type, t."createdAt", t."memoryId"`
      : `m."producerId", m.type, m."createdAt", m.id`,
  );
  const order = Prisma.raw(
    alias === 't'
      ? `t."producerId", t.type, t."createdAt" DESC, t."memoryId" DESC`
      : `m."producerId", m.type, m."createdAt" DESC, m.id DESC`,
  );
  const next = Prisma.raw(`(${alias}."producerId", ${alias}.type) > (g."producerId", g.type)`);
  const predicate = entriesOf(query, alias);
  return Prisma.sql`(SELECT ${cols} AS id FROM ${from} WHERE ${predicate} ORDER BY ${order} LIMIT 1)
      UNION ALL
      SELECT nxt.* FROM ${Prisma.raw(alias === 't' ? 'instrument_group' : 'agent_group')} g CROSS JOIN LATERAL (
        SELECT ${cols} FROM ${from} WHERE ${predicate} AND ${next} ORDER BY ${order} LIMIT 1) nxt`;
}

/** C9: when a group's newest record is after `at`, its latest record at or before `at`. */
function latestAtOrBefore(query: ContextQuery, alias: 't' | 'm'): Prisma.Sql {
  const id = Prisma.raw(alias === 't' ? 't."memoryId"' : 'm.id');
  const from = Prisma.raw(alias === 't' ? `"MemoryTarget" t` : `"Memory" m`);
  return Prisma.sql`CASE WHEN g."createdAt" <= ${query.at} THEN g.id ELSE (
               SELECT ${id} FROM ${from}
                WHERE ${entriesOf(query, alias)} AND ${Prisma.raw(alias)}."producerId" = g."producerId"
                  AND ${Prisma.raw(alias)}.type = g.type AND ${Prisma.raw(alias)}."createdAt" <= ${query.at}
                ORDER BY ${Prisma.raw(alias)}."createdAt" DESC, ${id} DESC LIMIT 1)
             END`;
}

/**
 * C1 + C2 + C6 candidates in one statement: each group's latest entry at `at` (instrument-targeting
 * and agent-wide), and every correction created by `at` of one of those entries (C11; grouping by
 * target set is the domain's, C6).
 * Each row carries its provenance (each run looked up once); entries their producer's enablement at
 * `at` (C3, C9); corrections their `corrects` targets; unexpired records their research (C4).
 */
function candidatesStatement(query: ContextQuery, liveness: TokenLiveness | null): Prisma.Sql {
  const { agentId, at } = query;
  return Prisma.sql`
    WITH RECURSIVE
    instrument_group AS (${latestPerGroup(query, 't')}),
    agent_group AS (${latestPerGroup(query, 'm')}),
    kept AS MATERIALIZED (
      SELECT ${latestAtOrBefore(query, 't')} AS id FROM instrument_group g
      UNION ALL
      SELECT ${latestAtOrBefore(query, 'm')} FROM agent_group g
    ),
    -- C11: only corrections of a kept record (through the links to it), so the list stays bounded.
    picked AS (
      SELECT id, false AS "isCorrection" FROM kept WHERE id IS NOT NULL
      UNION ALL
      SELECT m.id, true FROM "Memory" m
       -- An array of the kept ids, so the planner probes MemoryLink(targetMemoryId) with it (a join
       -- with the CTE was planned as a scan of every link: 17 ms of 25 on 2 M records).
       WHERE m.id IN (SELECT l."memoryId" FROM "MemoryLink" l
                       WHERE l."agentId" = ${agentId}::uuid AND l."targetMemoryId" = ANY (ARRAY(SELECT id FROM kept))
                         AND l."linkType" = ${CORRECTS})
         AND m."agentId" = ${agentId}::uuid AND m."runKind" = 'ANALYSIS' AND m."isCorrection" AND m."createdAt" <= ${at}
         AND (m.scope = 'AGENT' OR EXISTS (
               SELECT 1 FROM "MemoryTarget" t
                WHERE t."agentId" = ${agentId}::uuid AND t."memoryId" = m.id AND t."instrumentId" = ${query.instrument}))
    ),
    -- C3/C9: each producer's latest enablement change at or before at (equal instants ⇒ its current state).
    producer AS MATERIALIZED (
      SELECT pr.id, pr.name, (
               SELECT e.enabled FROM "ProducerEnablement" e
                WHERE e."agentId" = ${agentId}::uuid AND e."producerId" = pr.id AND e."changedAt" <= ${at}
                ORDER BY e."changedAt" DESC, (e.enabled = pr.enabled) DESC LIMIT 1) AS enabled
        FROM "Producer" pr
       WHERE pr."agentId" = ${agentId}::uuid
    ),
    row AS MATERIALIZED (
      SELECT m.id, m."sourceRunId", m."producerId", m.type, m.scope, m."createdAt", m."expiresAt", m."expiryPolicy",
             p."isCorrection", m.content, m.metadata, m.timeframe
        FROM picked p JOIN "Memory" m ON m."agentId" = ${agentId}::uuid AND m.id = p.id
    ),
    -- A run usually publishes several records: look each run up once.
    run AS MATERIALIZED (
      SELECT r.id, r.kind, r.schedule, r."evidenceBoundary", r.status FROM "Run" r
       WHERE r."agentId" = ${agentId}::uuid AND r.id IN (SELECT "sourceRunId" FROM row)
    )
    SELECT json_agg(json_build_object(
             'id', m.id, 'producerId', m."producerId", 'type', m.type, 'scope', m.scope,
             'createdAt', ${epochMs('m."createdAt"')}, 'expiresAt', ${epochMs('m."expiresAt"')},
             'expiryPolicy', m."expiryPolicy", 'isCorrection', m."isCorrection",
             'runId', r.id, 'runKind', r.kind, 'schedule', r.schedule,
             'evidenceBoundary', ${epochMs('r."evidenceBoundary"')}, 'runStatus', r.status, 'producerName', pr.name,
             'enabled', CASE WHEN NOT m."isCorrection" THEN pr.enabled END,
             'correctionTargetIds', CASE WHEN m."isCorrection" THEN ARRAY(
               SELECT l."targetMemoryId" FROM "MemoryLink" l
                WHERE l."agentId" = ${agentId}::uuid AND l."memoryId" = m.id AND l."linkType" = ${CORRECTS}
                ORDER BY l.position)
             END,
             -- C4: only a record unexpired at at can be shown FRESH, so only those carry their research.
             'research', CASE WHEN m."expiresAt" IS NULL OR m."expiresAt" > ${at} THEN json_build_object(
               'content', m.content, 'metadata', m.metadata, 'timeframe', m.timeframe,
               'instruments', ARRAY(SELECT t."instrumentId" FROM "MemoryTarget" t
                               WHERE t."agentId" = ${agentId}::uuid AND t."memoryId" = m.id ORDER BY t.position),
               'links', coalesce((SELECT json_agg(json_build_object('linkType', l."linkType", 'targetMemoryId', l."targetMemoryId")
                                         ORDER BY l.position)
                           FROM "MemoryLink" l WHERE l."agentId" = ${agentId}::uuid AND l."memoryId" = m.id), '[]'))
             END)) AS rows
      FROM row m
      JOIN run r ON r.id = m."sourceRunId"
      JOIN producer pr ON pr.id = m."producerId"
     ${liveness ? Prisma.sql`WHERE ${prismaCondition(liveness)}` : Prisma.empty}`;
}

/** livenessCondition as a Prisma.Sql fragment (the same text, its values as parameters). */
function prismaCondition(liveness: TokenLiveness): Prisma.Sql {
  const values: unknown[] = [];
  const { condition } = livenessCondition(liveness, (value) => {
    values.push(value);
    return '\u0000';
  });
  return new Prisma.Sql(condition.split('\u0000'), values);
}

const dateOf = (ms: number | null): Date | null => (ms === null ? null : new Date(ms));

function toCandidate(row: CandidateRow): EntryCandidate {
  return {
    id: row.id,
    producerId: row.producerId,
    type: row.type,
    scope: row.scope,
    createdAt: new Date(row.createdAt),
    expiresAt: dateOf(row.expiresAt),
    expiryPolicy: row.expiryPolicy,
    provenance: {
      runId: row.runId,
      producerId: row.producerId,
      producerName: row.producerName,
      kind: row.runKind,
      schedule: row.schedule,
      evidenceBoundary: dateOf(row.evidenceBoundary),
      runStatus: row.runStatus,
    },
    research: row.research,
  };
}

/**
 * The candidates of one agent's context for one instrument as of `at` (C1, C2, C6, C3 inputs); with
 * `liveness`, none when the caller's token no longer authenticates (listMemoryPage).
 */
export async function loadContextCandidates(
  db: Database,
  query: ContextQuery,
  liveness: TokenLiveness | null = null,
): Promise<ContextCandidates> {
  const statement = candidatesStatement(query, liveness);
  const [result] = await db.prisma.$queryRaw<[{ rows: CandidateRow[] | null }]>(statement);
  const entries: EntryCandidate[] = [];
  const corrections: CorrectionRowCandidate[] = [];
  const enabled = new Map<string, boolean>();
  for (const row of result?.rows ?? []) {
    if (row.isCorrection) {
      corrections.push({ ...toCandidate(row), correctionTargetIds: row.correctionTargetIds ?? [] });
    } else {
      entries.push(toCandidate(row));
      // No recorded change at `at` means the producer did not exist yet (legacy history): enabled.
      enabled.set(row.producerId, row.enabled ?? true);
    }
  }
  return { entries, corrections, enabledAt: (producerId) => enabled.get(producerId) ?? true };
}

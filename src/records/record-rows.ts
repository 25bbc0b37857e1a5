// Records in ONE statement: the Memory columns a selection needs with its targets,
// links and provenance as correlated subqueries and joins, converted to the one record shape
// (./record-shape.ts) — instead of one Prisma statement per relation.
import type { Sql } from '../store/db.js';
import { BACKLINKS_LIMIT, type Backlink, type MemoryRecord, type RecordReadFilter } from './record-shape.js';
import type { Prisma } from '../store/generated/prisma/client.js';

/** What a selection needs beyond the small columns, which are always loaded (cheap). */
export interface RecordNeeds {
  content: boolean;
  metadata: boolean;
  targets: boolean;
  links: boolean;
  provenance: boolean;
  /** The links to the record whose source these read rules allow (`linkedFrom`); null: not needed. */
  backlinks: RecordReadFilter | null;
}

type Optional = 'content' | 'metadata' | 'targets' | 'links' | 'sourceRun';

/** A record as loaded for a selection: the one record shape, the unselected large parts left out. */
/** The record with the parts not loaded left out, and its seq (L2: its place in the agent's commit order). */
export type LoadedRecord = Omit<MemoryRecord, Optional> &
  Partial<Pick<MemoryRecord, Optional>> & { seq: number; linkedBy?: Backlink[] };

type Part = Exclude<keyof RecordNeeds, 'backlinks'>;
const PARTS: Part[] = ['content', 'metadata', 'targets', 'links', 'provenance'];
/** Everything a record has (an export, an import's answer); `linkedFrom` has its own read rules. */
export const WHOLE_RECORD: RecordNeeds = {
  content: true,
  metadata: true,
  targets: true,
  links: true,
  provenance: true,
  backlinks: null,
};

/** A record loaded with WHOLE_RECORD is the whole record shape; anything else is a loader bug. */
export function wholeRecord(row: LoadedRecord): MemoryRecord {
  const { content, metadata, targets, links, sourceRun } = row;
  if (content === undefined || metadata === undefined || !targets || !links || sourceRun === undefined) {
    throw new Error('a record was loaded without all of its parts');
  }
  return { ...row, content, metadata, targets, links, sourceRun };
}

const READ_RULES = ['agentId', 'producerId', 'type'] as const;

/** A short, stable name of a needs set, for named prepared statements (read rules' values are parameters). */
export function needsKey(needs: RecordNeeds): string {
  const parts = PARTS.map((key) => (needs[key] ? '1' : '0')).join('');
  const { backlinks } = needs;
  if (!backlinks) return parts;
  return `${parts}b${READ_RULES.map((rule) => (backlinks[rule] === undefined ? '0' : '1')).join('')}`;
}

/** The row the statement returns (pg and PGlite parse timestamptz, json and text[] alike). */
interface RecordRow {
  id: string;
  agentId: string;
  type: string;
  scope: MemoryRecord['scope'];
  content?: string;
  metadata?: Prisma.JsonValue;
  timeframe: string | null;
  sourceRunId: string | null;
  producerId: string | null;
  runKind: MemoryRecord['runKind'];
  isCorrection: boolean;
  createdAt: Date;
  expiresAt: Date | null;
  expiryPolicy: string | null;
  idempotencyKey: string | null;
  requestHash: string | null;
  /** bigint as text (pg returns int8 as a string; PGlite as a bigint). */
  seq: string;
  instruments?: string[];
  links?: { linkType: string; targetMemoryId: string }[];
  /** json_build_object renders createdAt as an ISO text. */
  backlinks?: { linkType: string; id: string; type: string; createdAt: string }[];
  /** The run columns are present when provenance was needed, null without a source run. */
  run_id?: string | null;
  run_producer_id?: string | null;
  run_kind?: MemoryRecord['runKind'];
  run_schedule?: string | null;
  run_evidence_boundary?: Date | null;
  run_status?: NonNullable<MemoryRecord['sourceRun']>['status'] | null;
  run_producer_name?: string | null;
}

/** Which records: `where`, `order` and `limit` over "Memory" m; `name` names the CTE that selects them. */
export interface RecordQuery {
  name: 'page' | 'record' | 'learnings';
  /**
   * D2: the agent id's placeholder when every record is of that one agent: the relations' tables are
   * then read with it (one partition, one shard on Citus), not with each row's agent id.
   */
  agent?: string;
  where: string;
  order: string;
  limit: string;
  /**
   * The most rows a parameter in `limit` can let through, written into the text as a bound the
   * planner sees: a generic plan takes a LIMIT parameter for a tenth of the matching rows.
   */
  maxRows?: number;
}

/**
 * The records `query` selects with what `needs` asks for, in ONE statement, named
 * `<query.name>_<variant>_<needs>` (`variant` tells apart the texts one caller builds; null: unnamed).
 */
export async function loadRecords(
  sql: Sql,
  needs: RecordNeeds,
  query: RecordQuery,
  values: unknown[],
  variant: string | null,
): Promise<LoadedRecord[]> {
  // No variant: an unnamed statement, planned with its values (see FilterSql.variant).
  const name = variant === null ? undefined : `${query.name}_${variant}_${needsKey(needs)}`;
  const all = [...values];
  const text = recordSql(needs, query, (value) => `$${all.push(value)}`);
  return (await sql.query<RecordRow>(text, all, name)).map(toLoadedRecord);
}

/**
 * The statement: the CTE `page.name` selects the records ("Memory" m, `page.where`, `page.order`,
 * `page.limit`); its rows then get their relations, in the same order. The name shows in statement
 * logs (and the round-trip snapshots); PostgreSQL inlines the CTE.
 */
function recordSql(needs: RecordNeeds, page: RecordQuery, param: (value: unknown) => string): string {
  const large = [needs.content ? ', m.content' : '', needs.metadata ? ', m.metadata' : ''].join('');
  const selected = `SELECT m.id, m."agentId", m.type, m.scope, m.timeframe, m."sourceRunId", m."producerId", m."runKind",
      m."isCorrection", m."createdAt", m."expiresAt", m."expiryPolicy", m."idempotencyKey", m."requestHash", m.seq::text AS seq${large}
    FROM "Memory" m WHERE ${page.where} ${page.order}`;
  // B4: planned for at most maxRows rows, not thousands (a seq scan and sort, or JIT on every execution).
  const inner =
    page.maxRows === undefined
      ? `${selected} ${page.limit}`
      : `SELECT * FROM (${selected} LIMIT ${page.maxRows}) m ${page.order} ${page.limit}`;
  const agent = page.agent ?? 'm."agentId"';
  const relations = [
    needs.targets
      ? `ARRAY(SELECT t."instrumentId" FROM "MemoryTarget" t WHERE t."agentId" = ${agent} AND t."memoryId" = m.id ORDER BY t.position) AS instruments`
      : '',
    needs.links
      ? `(SELECT coalesce(json_agg(json_build_object('linkType', l."linkType", 'targetMemoryId', l."targetMemoryId")
           ORDER BY l.position), '[]') FROM "MemoryLink" l WHERE l."agentId" = ${agent} AND l."memoryId" = m.id) AS links`
      : '',
    needs.backlinks ? backlinksSql(needs.backlinks, agent, param) : '',
    needs.provenance
      ? `r.id AS run_id, r."producerId" AS run_producer_id, r.kind AS run_kind, r.schedule AS run_schedule,
         r."evidenceBoundary" AS run_evidence_boundary, r.status AS run_status, p.name AS run_producer_name`
      : '',
  ].filter(Boolean);
  const joins = needs.provenance
    ? `LEFT JOIN "Run" r ON r."agentId" = ${agent} AND r.id = m."sourceRunId"
       LEFT JOIN "Producer" p ON p."agentId" = ${agent} AND p.id = r."producerId"`
    : '';
  return `WITH ${page.name} AS (${inner})
SELECT m.*${relations.map((column) => `, ${column}`).join('')}
  FROM ${page.name} m ${joins} ${page.order}`;
}

/**
 * `linkedFrom` (backlinksArgs in SQL): the links to m from records of its agent that `readable` allows,
 * the newest BACKLINKS_LIMIT sources, through the MemoryLink(targetMemoryId) index.
 */
function backlinksSql(readable: RecordReadFilter, agent: string, param: (value: unknown) => string): string {
  const rules = READ_RULES.flatMap((rule) => {
    const value = readable[rule];
    return value === undefined ? [] : [`AND s."${rule}" = ${param(value)}`];
  });
  return `(SELECT coalesce(json_agg(json_build_object('linkType', b."linkType", 'id', b.id, 'type', b.type,
      'createdAt', b."createdAt") ORDER BY b."createdAt" DESC, b.id DESC, b.position), '[]')
    FROM (SELECT l."linkType", l.position, s.id, s.type, s."createdAt"
      FROM "MemoryLink" l JOIN "Memory" s ON s."agentId" = ${agent} AND s.id = l."memoryId"
      WHERE l."agentId" = ${agent} AND l."targetMemoryId" = m.id ${rules.join(' ')}
      ORDER BY s."createdAt" DESC, s.id DESC, l.position LIMIT ${BACKLINKS_LIMIT}) b) AS backlinks`;
}

/** A row in the one record shape; the parts the statement did not load stay absent. */
function toLoadedRecord(row: RecordRow): LoadedRecord {
  // Read from the row by name (a rest spread would copy every column once more, per record).
  const { instruments, links, content, metadata } = row;
  const record: LoadedRecord = {
    id: row.id,
    agentId: row.agentId,
    type: row.type,
    scope: row.scope,
    timeframe: row.timeframe,
    sourceRunId: row.sourceRunId,
    producerId: row.producerId,
    runKind: row.runKind,
    isCorrection: row.isCorrection,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
    expiryPolicy: row.expiryPolicy,
    idempotencyKey: row.idempotencyKey,
    requestHash: row.requestHash,
    seq: Number(row.seq),
  };
  if (content !== undefined) record.content = content;
  if (metadata !== undefined) record.metadata = metadata;
  if (instruments) record.targets = instruments.map((instrumentId) => ({ instrumentId }));
  if (links) record.links = links;
  if (row.run_id !== undefined) record.sourceRun = provenanceOf(row);
  if (row.backlinks) {
    record.linkedBy = row.backlinks.map(({ linkType, id, type, createdAt }) => ({
      linkType,
      memory: { id, type, createdAt: new Date(createdAt) },
    }));
  }
  return record;
}

function provenanceOf(row: RecordRow): LoadedRecord['sourceRun'] {
  if (
    !row.run_id ||
    !row.run_producer_id ||
    !row.run_kind ||
    !row.run_status ||
    row.run_producer_name == null
  )
    return null;
  return {
    id: row.run_id,
    producerId: row.run_producer_id,
    kind: row.run_kind,
    schedule: row.run_schedule ?? null,
    evidenceBoundary: row.run_evidence_boundary ?? null,
    status: row.run_status,
    producer: { name: row.run_producer_name },
  };
}

// Records in ONE statement (issue 14 item 2): the Memory columns a selection needs with its targets,
// links and provenance as correlated subqueries and joins, converted to the one record shape
// (./memory-record.ts) — instead of one Prisma statement per relation.
import type { Sql } from './db.js';
import { memoryRecordSelect, type MemoryRecord } from './memory-record.js';
import type { Prisma } from './generated/prisma/client.js';

/** What a selection needs beyond the small columns, which are always loaded (cheap). */
export interface RecordNeeds {
  content: boolean;
  metadata: boolean;
  targets: boolean;
  links: boolean;
  provenance: boolean;
}

type Optional = 'content' | 'metadata' | 'targets' | 'links' | 'sourceRun';

/** A record as loaded for a selection: the one record shape, the unselected large parts left out. */
/** The record with the parts not loaded left out, and its seq (L2: its place in the agent's commit order). */
export type LoadedRecord = Omit<MemoryRecord, Optional> &
  Partial<Pick<MemoryRecord, Optional>> & { seq: number };

const ALL: RecordNeeds = { content: true, metadata: true, targets: true, links: true, provenance: true };

const NEED_OF_KEY: Partial<Record<string, keyof RecordNeeds>> = {
  content: 'content',
  metadata: 'metadata',
  targets: 'targets',
  links: 'links',
  sourceRun: 'provenance',
};

/** The small columns of the one record shape: loaded whatever is selected (a few bytes each). */
const SMALL_COLUMNS = new Set(Object.keys(memoryRecordSelect).filter((key) => !NEED_OF_KEY[key]));

/**
 * What Pothos' planned query for a Memory asks for. A key this loader does not know (a relation
 * added to Memory later) is an error, not a silent gap: Pothos would read it from the row unloaded.
 */
export function needsOf(query: { select?: Prisma.MemorySelect }): RecordNeeds {
  if (!query.select) return ALL;
  const needs: RecordNeeds = {
    content: false,
    metadata: false,
    targets: false,
    links: false,
    provenance: false,
  };
  for (const [key, value] of Object.entries(query.select)) {
    if (!value || SMALL_COLUMNS.has(key)) continue;
    const need = NEED_OF_KEY[key];
    if (!need) throw new Error(`the record loader cannot load Memory.${key}`);
    needs[need] = true;
  }
  return needs;
}

/** A short, stable name of a needs set, for named prepared statements. */
export function needsKey(needs: RecordNeeds): string {
  return (Object.keys(ALL) as (keyof RecordNeeds)[]).map((key) => (needs[key] ? '1' : '0')).join('');
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
  where: string;
  order: string;
  limit: string;
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
  return (await sql.query<RecordRow>(recordSql(needs, query), values, name)).map(toLoadedRecord);
}

/**
 * The statement: the CTE `page.name` selects the records ("Memory" m, `page.where`, `page.order`,
 * `page.limit`); its rows then get their relations, in the same order. The name shows in statement
 * logs (and the round-trip snapshots); PostgreSQL inlines the CTE.
 */
function recordSql(needs: RecordNeeds, page: RecordQuery): string {
  const large = [needs.content ? ', m.content' : '', needs.metadata ? ', m.metadata' : ''].join('');
  const inner = `SELECT m.id, m."agentId", m.type, m.scope, m.timeframe, m."sourceRunId", m."producerId", m."runKind",
      m."isCorrection", m."createdAt", m."expiresAt", m."expiryPolicy", m."idempotencyKey", m."requestHash", m.seq::text AS seq${large}
    FROM "Memory" m WHERE ${page.where} ${page.order} ${page.limit}`;
  const relations = [
    needs.targets
      ? `ARRAY(SELECT t."instrumentId" FROM "MemoryTarget" t WHERE t."memoryId" = m.id ORDER BY t.position) AS instruments`
      : '',
    needs.links
      ? `(SELECT coalesce(json_agg(json_build_object('linkType', l."linkType", 'targetMemoryId', l."targetMemoryId")
           ORDER BY l.position), '[]') FROM "MemoryLink" l WHERE l."memoryId" = m.id) AS links`
      : '',
    needs.provenance
      ? `r.id AS run_id, r."producerId" AS run_producer_id, r.kind AS run_kind, r.schedule AS run_schedule,
         r."evidenceBoundary" AS run_evidence_boundary, r.status AS run_status, p.name AS run_producer_name`
      : '',
  ].filter(Boolean);
  const joins = needs.provenance
    ? `LEFT JOIN "Run" r ON r.id = m."sourceRunId" LEFT JOIN "Producer" p ON p.id = r."producerId"`
    : '';
  return `WITH ${page.name} AS (${inner})
SELECT m.*${relations.map((column) => `, ${column}`).join('')}
  FROM ${page.name} m ${joins} ${page.order}`;
}

/** A row in the one record shape; the parts the statement did not load stay absent. */
function toLoadedRecord(row: RecordRow): LoadedRecord {
  const { instruments, links, content, metadata, ...columns } = row;
  const record: LoadedRecord = {
    id: columns.id,
    agentId: columns.agentId,
    type: columns.type,
    scope: columns.scope,
    timeframe: columns.timeframe,
    sourceRunId: columns.sourceRunId,
    producerId: columns.producerId,
    runKind: columns.runKind,
    isCorrection: columns.isCorrection,
    createdAt: columns.createdAt,
    expiresAt: columns.expiresAt,
    expiryPolicy: columns.expiryPolicy,
    idempotencyKey: columns.idempotencyKey,
    requestHash: columns.requestHash,
    seq: Number(columns.seq),
  };
  if (content !== undefined) record.content = content;
  if (metadata !== undefined) record.metadata = metadata;
  if (instruments) record.targets = instruments.map((instrumentId) => ({ instrumentId }));
  if (links) record.links = links;
  if (row.run_id !== undefined) record.sourceRun = provenanceOf(row);
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

// Memory rows in and out: the single write statement (W2, W4, W5, W9 in one round trip), the
// idempotency lookup (W8) and the references an import names (I1–I3). SQL and Prisma only: what to
// store is decided by ../domain, the use cases live in ../service.
import {
  InputError,
  InvalidMemoryLinkError,
  InvalidMemoryTargetError,
  MemoryValidationError,
  RunNotRunningError,
} from '../domain/errors.js';
import { isCorrection } from '../domain/write-validation.js';
import type { RunIdentity, RunKind } from '../domain/types.js';
import type { Database, Sql } from '../store/db.js';
import type { MemoryRecord } from './record-shape.js';
import { loadRecords, WHOLE_RECORD, wholeRecord } from './record-rows.js';
import type { Prisma } from '../store/generated/prisma/client.js';
import { namedStatement } from '../store/named-sql.js';
import type { WriteForm } from '../store/write-form.js';
import {
  INSERT_PARAMS,
  insertValues,
  LINKABLE,
  NOTHING_CHECKED,
  TARGETABLE,
  WRITER,
  type InsertChecks,
  type MemoryInsert,
} from './record-insert.js';
import { insertRoutable } from './routable-write.js';

export type { MemoryInsert };

/**
 * W2, W4, W5 and W9 in ONE statement: it checks that the run is RUNNING, every target is targetable
 * and every link target a record of the agent, and only then inserts the record, its targets and its
 * links (data-modifying CTEs) — atomic without an interactive transaction, one round trip. When a
 * check fails nothing is inserted and the valid references come back, so the caller can name the
 * first bad index.
 *
 * L2: the record takes the agent's next seq from `"Agent"."lastSeq"` in the same statement. The
 * UPDATE holds the agent's row lock until the transaction commits, so a concurrent write of the
 * same agent waits for it and takes the next number: seq order is commit order, and a statement
 * that fails rolls its number back (no gaps).
 */
const insertStatement = (mode: 'write' | 'import') =>
  namedStatement(
    INSERT_PARAMS,
    (p) => `
WITH writer AS (
  ${WRITER[mode](p)}
), selected AS (
  ${TARGETABLE[mode](p)}
), linkable AS (
  ${LINKABLE(p)}
), valid AS (
  SELECT cardinality(selected.ids) = cardinality(${p.instruments}::text[])
     AND cardinality(linkable.ids) = (SELECT count(DISTINCT target) FROM unnest(${p.linkTargets}::uuid[]) AS target)
     AND EXISTS (SELECT 1 FROM writer WHERE writer.status = 'RUNNING') AS ok
    FROM selected, linkable
), next AS (
  UPDATE "Agent" SET "lastSeq" = "lastSeq" + 1
   WHERE id = ${p.agentId} AND (SELECT ok FROM valid)
  RETURNING "lastSeq" AS seq
), m AS (
  INSERT INTO "Memory" (id, "agentId", type, scope, content, metadata, timeframe, "sourceRunId", "producerId",
                        "runKind", "isCorrection", "createdAt", "expiresAt", "expiryPolicy", "idempotencyKey", "requestHash", seq)
  SELECT ${p.id}, ${p.agentId}, ${p.type}, ${p.scope}::"MemoryScope", ${p.content}, ${p.metadata}::json,
         ${p.timeframe}, ${p.sourceRunId}, ${p.producerId}, ${p.runKind}::"RunKind", ${p.isCorrection},
         ${p.createdAt}, ${p.expiresAt}, ${p.expiryPolicy}, ${p.idempotencyKey}, ${p.requestHash}, next.seq
    FROM next
  RETURNING id, seq
), t AS (
  INSERT INTO "MemoryTarget" ("memoryId", position, "instrumentId", "agentId", "producerId", "runKind", type, "isCorrection", "createdAt")
  SELECT m.id, u.ord - 1, u.instrument, ${p.agentId}, ${p.producerId}, ${p.runKind}::"RunKind", ${p.type},
         ${p.isCorrection}, ${p.createdAt}
    FROM m, unnest(${p.instruments}::text[]) WITH ORDINALITY AS u(instrument, ord)
), l AS (
  INSERT INTO "MemoryLink" ("agentId", "memoryId", position, "targetMemoryId", "linkType")
  SELECT ${p.agentId}, m.id, u.ord - 1, u.target, u.link_type
    FROM m, unnest(${p.linkTargets}::uuid[], ${p.linkTypes}::text[]) WITH ORDINALITY AS u(target, link_type, ord)
)
SELECT (SELECT id FROM m) AS id, (SELECT seq::text FROM m) AS seq, (SELECT status FROM writer) AS run_status,
       selected.ids AS selected, linkable.ids AS linkable FROM selected, linkable`,
  );

const INSERT_MEMORY = { write: insertStatement('write'), import: insertStatement('import') };

interface InsertResult extends InsertChecks {
  id: string | null;
  /** bigint as text: the drivers disagree on how they hand over int8. */
  seq: string | null;
}

/**
 * Stores a write's record in the database's write form (D2, `WRITE_FORM`) and returns its seq (L2),
 * or throws the typed error of its first bad reference.
 */
export function storeMemory(db: Database, row: MemoryInsert): Promise<number> {
  return db.writeForm === 'transaction'
    ? db.sqlTransaction((sql) => insertMemory(sql, row, 'write', 'transaction'))
    : insertMemory(db.writeSql, row, 'write', 'statement');
}

/**
 * Inserts a record with its targets and links and returns its seq (L2), or throws the typed error of
 * its first bad reference. `transaction` runs single-shard statements on `sql`, which must then be
 * inside a transaction (./routable-write.ts).
 */
export async function insertMemory(
  sql: Sql,
  row: MemoryInsert,
  mode: 'write' | 'import',
  form: WriteForm,
): Promise<number> {
  try {
    if (form === 'transaction') {
      const outcome = await insertRoutable(sql, row, mode);
      if ('seq' in outcome) return outcome.seq;
      return refuse(row, outcome);
    }
    const statement = INSERT_MEMORY[mode];
    // Prepared once per connection of the write pool (its plans stay PostgreSQL's choice: every
    // lookup is by key): parsing and planning this statement cost more than running it.
    const [result] = await sql.query<InsertResult>(
      statement.text,
      statement.bind(insertValues(row)),
      `memory_${mode}`,
    );
    if (result?.id) return Number(result.seq);
    return refuse(row, result ?? NOTHING_CHECKED);
  } catch (error) {
    throw isSearchDocumentTooLong(error) ? searchDocumentError() : error;
  }
}

/** The typed error of the first bad reference the checks found. */
function refuse(row: MemoryInsert, checks: InsertChecks): never {
  // W9: the run finished (or vanished) before this write could commit.
  if (checks.run_status !== 'RUNNING') throw new RunNotRunningError(row.sourceRunId, checks.run_status);
  const selected = new Set(checks.selected);
  const linkable = new Set(checks.linkable);
  const badTarget = row.instruments.findIndex((instrument) => !selected.has(instrument));
  if (badTarget >= 0) throw new InvalidMemoryTargetError(badTarget, row.instruments[badTarget]!);
  const badLink = row.links.findIndex((link) => !linkable.has(link.targetMemoryId));
  if (badLink >= 0) throw new InvalidMemoryLinkError(badLink);
  throw new Error('memory insert returned no row although every reference is valid');
}

/**
 * The stored search document ("searchDocument", B11) refused the row: its words and positions exceed
 * PostgreSQL's 1 MiB tsvector limit (SQLSTATE 54000). W7's limits allow content and metadata that
 * together do (hundreds of thousands of distinct words); such a write is refused, never a 500.
 */
function isSearchDocumentTooLong(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === '54000' && typeof message === 'string' && message.includes('too long for tsvector');
}

function searchDocumentError(): MemoryValidationError {
  return new MemoryValidationError(
    'content',
    'content and metadata together hold too many distinct words to be indexed for search (over 1 MiB of words and positions); shorten either.',
  );
}

/** W8: the producer's record stored under `key`, read in one statement with everything a retry answers with. */
export async function findByIdempotencyKey(
  db: Database,
  agentId: string,
  producerId: string,
  key: string,
): Promise<MemoryRecord | null> {
  const query = {
    name: 'record',
    agent: '$1',
    where: 'm."agentId" = $1 AND m."producerId" = $2 AND m."idempotencyKey" = $3',
    order: '',
    limit: '',
  } as const;
  const [row] = await loadRecords(db.sql, WHOLE_RECORD, query, [agentId, producerId, key], 'idem');
  return row ? wholeRecord(row) : null;
}

/** The record a write just stored, in the one record shape, without reading it back. */
export function insertedRecord(row: MemoryInsert, run: RunIdentity & { producerName: string }): MemoryRecord {
  const { instruments, links, metadata, ...columns } = row;
  return {
    ...columns,
    metadata: metadata as Prisma.JsonObject, // W7 admitted it: a JSON-serialisable object
    isCorrection: isCorrection(links),
    targets: instruments.map((instrumentId) => ({ instrumentId })),
    links,
    sourceRun: {
      id: run.id,
      producerId: run.producerId,
      kind: run.kind,
      schedule: run.schedule,
      evidenceBoundary: run.evidenceBoundary,
      status: 'RUNNING', // W9: the insert saw the run RUNNING under its row lock
      producer: { name: run.producerName },
    },
  };
}

/** I1: the run an imported record names, when it is a run of the same agent; throws when the agent is unknown. */
export async function findImportRun(
  sql: Sql,
  agentId: string,
  sourceRunId: string | null | undefined,
): Promise<{ id: string; producerId: string; kind: RunKind } | null> {
  const [agent] = await sql.query('SELECT 1 FROM "Agent" WHERE id = $1', [agentId]);
  if (!agent) throw new InputError(`agent ${agentId} does not exist`, 'agentId');
  if (!sourceRunId) return null;
  const [run] = await sql.query<{ id: string; producerId: string; kind: RunKind }>(
    'SELECT id, "producerId", kind FROM "Run" WHERE "agentId" = $2 AND id = $1',
    [sourceRunId, agentId],
  );
  if (!run) throw new InputError('sourceRunId must be a run of the same agent', 'sourceRunId');
  return run;
}

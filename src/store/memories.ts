// The write path (W1–W8, X1–X6) and legacy import (I1–I4). One service function serves the
// GraphQL mutation and the REST mirror; failures are typed errors from ./errors.ts.
import { createHash, randomUUID } from 'node:crypto';
import type { RunIdentity } from '../auth/caller.js';
import { evaluateStoredExpiry, stampWriteExpiry } from '../domain/expiry.js';
import type { JsonObject, MemoryScope } from '../domain/types.js';
import { checkWriteShape, type WriteLink } from '../domain/write-validation.js';
import type { Database, Sql } from './db.js';
import {
  IdempotencyConflictError,
  ImportItemError,
  InputError,
  InvalidMemoryLinkError,
  InvalidMemoryTargetError,
  isUniqueViolation,
  MemoryValidationError,
  ReservedMemoryTypeError,
  RunNotRunningError,
  StoreError,
} from './errors.js';
import type { RunKind } from './generated/prisma/client.js';

export interface CreateMemoryInput {
  type: string;
  scope: MemoryScope;
  instruments?: string[] | null;
  content: string;
  metadata?: unknown;
  timeframe?: string | null;
  links?: WriteLink[] | null;
  idempotencyKey?: string | null;
}

/** What a committed write reports; the caller shapes the full record from `id`. */
export interface WrittenMemory {
  id: string;
  agentId: string;
  type: string;
  createdAt: Date;
  expiresAt: Date | null;
  /** False when an idempotent retry returned the original record (W8): nothing new to announce. */
  created: boolean;
  /** The stored record with its targets, links and source run, when the writer knows all of it. */
  row?: WrittenRow;
}

/** The shape of a Memory row with the relations the API shows (as Prisma would read it back). */
export type WrittenRow = Omit<
  MemoryInsert,
  'instruments' | 'links' | 'sourceRunId' | 'producerId' | 'runKind'
> & {
  sourceRunId: string;
  producerId: string;
  runKind: RunKind;
  isCorrection: boolean;
  targets: { instrumentId: string }[];
  links: WriteLink[];
  sourceRun: {
    id: string;
    producerId: string;
    kind: RunKind;
    schedule: string | null;
    evidenceBoundary: Date | null;
    status: 'RUNNING';
    producer: { name: string };
  };
};

const CORRECTS = 'corrects';

/** SHA-256 of the write input with object keys sorted, so a retry is recognised whatever its key order (W8). */
function requestHash(input: CreateMemoryInput): string {
  const canonical = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(canonical);
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.keys(value)
          .sort()
          .map((key) => [key, canonical((value as JsonObject)[key])]),
      );
    }
    return value;
  };
  const normalized = {
    type: input.type,
    scope: input.scope,
    instruments: input.instruments ?? [],
    content: input.content,
    metadata: input.metadata ?? {},
    timeframe: input.timeframe ?? null,
    links: (input.links ?? []).map((l) => ({
      targetMemoryId: l.targetMemoryId.toLowerCase(),
      linkType: l.linkType,
    })),
  };
  return createHash('sha256')
    .update(JSON.stringify(canonical(normalized)))
    .digest('hex');
}

/** Which instruments a record may target: writes need selected, active ones (W2); imports only catalog ones (I2). */
const TARGETABLE = {
  selected: `SELECT coalesce(array_agg(s."instrumentId"), '{}') AS ids
    FROM "AgentInstrument" s JOIN "Instrument" i ON i.id = s."instrumentId"
   WHERE s."agentId" = $2 AND s."deselectedAt" IS NULL AND i.active AND s."instrumentId" = ANY($17::text[])`,
  catalog: `SELECT coalesce(array_agg(i.id), '{}') AS ids FROM "Instrument" i WHERE i.id = ANY($17::text[])`,
} as const;

/**
 * W9 for writes: the writing run's row is read FOR SHARE, so the insert sees its committed status and
 * a concurrent finishRun (which takes the row FOR UPDATE) waits until this write has committed.
 * Imports name historic runs and check nothing about their status.
 */
const WRITER = {
  running: `SELECT r.status::text AS status FROM "Run" r WHERE r.id = $8 FOR SHARE`,
  any: `SELECT 'RUNNING'::text AS status`,
} as const;

/**
 * W2, W4, W5 and W9 in ONE statement: it checks that the run is RUNNING, every target is targetable
 * and every link target a record of the agent, and only then inserts the record, its targets and its
 * links (data-modifying CTEs) — atomic without an interactive transaction, one round trip. When a
 * check fails nothing is inserted and the valid references come back, so the caller can name the
 * first bad index.
 */
const insertStatement = (targetable: string, writer: string) => `
WITH writer AS (
  ${writer}
), selected AS (
  ${targetable}
), linkable AS (
  SELECT coalesce(array_agg(m.id), '{}') AS ids FROM "Memory" m WHERE m."agentId" = $2 AND m.id = ANY($18::uuid[])
), valid AS (
  SELECT cardinality(selected.ids) = cardinality($17::text[])
     AND cardinality(linkable.ids) = (SELECT count(DISTINCT target) FROM unnest($18::uuid[]) AS target)
     AND EXISTS (SELECT 1 FROM writer WHERE writer.status = 'RUNNING') AS ok
    FROM selected, linkable
), m AS (
  INSERT INTO "Memory" (id, "agentId", type, scope, content, metadata, timeframe, "sourceRunId", "producerId",
                        "runKind", "isCorrection", "createdAt", "expiresAt", "expiryPolicy", "idempotencyKey", "requestHash")
  SELECT $1, $2, $3, $4::"MemoryScope", $5, $6::json, $7, $8, $9, $10::"RunKind", $11, $12, $13, $14, $15, $16
    FROM valid WHERE valid.ok
  RETURNING id
), t AS (
  INSERT INTO "MemoryTarget" ("memoryId", position, "instrumentId", "agentId", "producerId", "runKind", type, "isCorrection", "createdAt")
  SELECT m.id, u.ord - 1, u.instrument, $2, $9, $10::"RunKind", $3, $11, $12
    FROM m, unnest($17::text[]) WITH ORDINALITY AS u(instrument, ord)
), l AS (
  INSERT INTO "MemoryLink" ("memoryId", position, "targetMemoryId", "linkType")
  SELECT m.id, u.ord - 1, u.target, u.link_type
    FROM m, unnest($18::uuid[], $19::text[]) WITH ORDINALITY AS u(target, link_type, ord)
)
SELECT (SELECT id FROM m) AS id, (SELECT status FROM writer) AS run_status,
       selected.ids AS selected, linkable.ids::text[] AS linkable FROM selected, linkable`;

const INSERT_MEMORY = {
  write: insertStatement(TARGETABLE.selected, WRITER.running),
  import: insertStatement(TARGETABLE.catalog, WRITER.any),
};

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
  links: WriteLink[];
}

/** Inserts a record with its targets and links, or throws the typed error of its first bad reference. */
async function insertMemory(sql: Sql, row: MemoryInsert, kind: keyof typeof INSERT_MEMORY): Promise<void> {
  const linkIds = row.links.map((link) => link.targetMemoryId);
  const [result] = await sql.query<{
    id: string | null;
    run_status: string | null;
    selected: string[];
    linkable: string[];
  }>(INSERT_MEMORY[kind], [
    row.id,
    row.agentId,
    row.type,
    row.scope,
    row.content,
    JSON.stringify(row.metadata),
    row.timeframe,
    row.sourceRunId,
    row.producerId,
    row.runKind,
    row.links.some((link) => link.linkType === CORRECTS),
    row.createdAt,
    row.expiresAt,
    row.expiryPolicy,
    row.idempotencyKey,
    row.requestHash,
    row.instruments,
    linkIds,
    row.links.map((link) => link.linkType),
  ]);
  if (result?.id) return;
  // W9: the run finished (or vanished) before this write could commit.
  if (result?.run_status !== 'RUNNING')
    throw new RunNotRunningError(row.sourceRunId, result?.run_status ?? null);
  const selected = new Set(result?.selected ?? []);
  const linkable = new Set(result?.linkable ?? []);
  const badTarget = row.instruments.findIndex((instrument) => !selected.has(instrument));
  if (badTarget >= 0) throw new InvalidMemoryTargetError(badTarget, row.instruments[badTarget]!);
  const badLink = linkIds.findIndex((target) => !linkable.has(target));
  if (badLink >= 0) throw new InvalidMemoryLinkError(badLink);
  throw new Error('memory insert returned no row although every reference is valid');
}

function throwShapeError(check: Exclude<ReturnType<typeof checkWriteShape>, { ok: true }>): never {
  if (check.kind === 'reserved') throw new ReservedMemoryTypeError(check.message);
  throw new MemoryValidationError(check.error.field, check.error.message);
}

/** W8: keys are per producer, so a key never finds (or reveals) another producer's record. */
async function findByIdempotencyKey(
  db: Database,
  producerId: string,
  key: string,
  hash: string,
): Promise<WrittenMemory> {
  const existing = await db.prisma.memory.findUnique({
    where: { producerId_idempotencyKey: { producerId, idempotencyKey: key } },
    select: { id: true, agentId: true, type: true, createdAt: true, expiresAt: true, requestHash: true },
  });
  if (!existing) throw new Error('idempotency key vanished'); // records are never deleted
  if (existing.requestHash !== hash) throw new IdempotencyConflictError();
  const { requestHash: _hash, ...memory } = existing;
  return { ...memory, created: false };
}

/** createMemory for a run token: provenance comes from the run, never from the input. */
export async function createMemory(
  db: Database,
  run: RunIdentity,
  input: CreateMemoryInput,
  now: Date,
): Promise<WrittenMemory> {
  const shape = checkWriteShape(
    {
      type: input.type,
      scope: input.scope,
      instruments: input.instruments,
      content: input.content,
      metadata: input.metadata,
      timeframe: input.timeframe,
      links: input.links,
      idempotencyKey: input.idempotencyKey,
    },
    'write',
    run.kind,
  );
  if (!shape.ok) throwShapeError(shape);

  const key = input.idempotencyKey ?? null;
  const hash = key ? requestHash(input) : null;
  if (key && hash) {
    const prior = await db.prisma.memory.findUnique({
      where: { producerId_idempotencyKey: { producerId: run.producerId, idempotencyKey: key } },
      select: { id: true },
    });
    if (prior) return findByIdempotencyKey(db, run.producerId, key, hash);
  }

  // X1–X6: the backend stamps (Analysis) or validates (Trading/Review) expiry.
  const expiry = stampWriteExpiry({
    kind: run.kind,
    schedule: run.schedule,
    evidenceBoundary: run.evidenceBoundary,
    publishedAt: now,
    metadata: shape.metadata,
  });
  if (!expiry.ok) throw new MemoryValidationError(expiry.error.field, expiry.error.message);

  const insert: MemoryInsert = {
    id: randomUUID(),
    agentId: run.agentId,
    type: input.type,
    scope: input.scope,
    content: input.content,
    metadata: expiry.metadata,
    timeframe: input.timeframe ?? null,
    sourceRunId: run.id,
    producerId: run.producerId,
    runKind: run.kind,
    createdAt: now,
    expiresAt: expiry.expiresAt,
    expiryPolicy: expiry.expiryPolicy,
    idempotencyKey: key,
    requestHash: hash,
    instruments: shape.instruments,
    links: shape.links.map((link) => ({
      targetMemoryId: link.targetMemoryId.toLowerCase(),
      linkType: link.linkType,
    })),
  };
  try {
    await insertMemory(db.sql, insert, 'write');
  } catch (error) {
    // W8 under concurrency: the loser of a race on the same key answers like a retry.
    if (key && hash && isUniqueViolation(error)) return findByIdempotencyKey(db, run.producerId, key, hash);
    throw error;
  }
  const { instruments, links, ...columns } = insert;
  const row: WrittenRow | undefined =
    run.producerName === undefined
      ? undefined
      : {
          ...columns,
          sourceRunId: run.id,
          producerId: run.producerId,
          runKind: run.kind,
          isCorrection: links.some((link) => link.linkType === CORRECTS),
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
  return {
    id: insert.id,
    agentId: run.agentId,
    type: input.type,
    createdAt: now,
    expiresAt: expiry.expiresAt,
    created: true,
    row,
  };
}

export interface ImportMemoryInput extends Omit<CreateMemoryInput, 'idempotencyKey'> {
  agentId: string;
  sourceRunId?: string | null;
  createdAt: Date;
}

/** I1–I4: legacy records stored verbatim in one transaction; any bad item stores nothing and names its index. */
export async function importMemories(db: Database, items: ImportMemoryInput[]): Promise<WrittenMemory[]> {
  if (items.length > 1000) throw new InputError('input', 'import at most 1000 records per batch');
  return db.sqlTransaction(async (sql) => {
    const written: WrittenMemory[] = [];
    for (const [index, item] of items.entries()) {
      try {
        written.push(await importOne(sql, item));
      } catch (error) {
        if (error instanceof StoreError) throw new ImportItemError(index, error);
        throw error;
      }
    }
    return written;
  });
}

async function importOne(sql: Sql, item: ImportMemoryInput): Promise<WrittenMemory> {
  const shape = checkWriteShape(
    {
      type: item.type,
      scope: item.scope,
      instruments: item.instruments,
      content: item.content,
      metadata: item.metadata,
      timeframe: item.timeframe,
      links: item.links,
    },
    'import',
    null,
  );
  if (!shape.ok) throwShapeError(shape);
  const [agent] = await sql.query('SELECT 1 FROM "Agent" WHERE id = $1', [item.agentId]);
  if (!agent) throw new InputError('agentId', `agent ${item.agentId} does not exist`);

  let run: { id: string; producerId: string; kind: RunKind } | null = null;
  if (item.sourceRunId) {
    [run = null] = await sql.query<{ id: string; producerId: string; kind: RunKind }>(
      'SELECT id, "producerId", kind FROM "Run" WHERE id = $1 AND "agentId" = $2',
      [item.sourceRunId, item.agentId],
    );
    if (!run) throw new InputError('sourceRunId', 'sourceRunId must be a run of the same agent');
  }

  // I1: nothing is stamped; the expiry is evaluated by X7–X10 through the shared expiry function.
  const { expiresAt, expiryPolicy } = evaluateStoredExpiry({
    metadata: shape.metadata,
    createdAt: item.createdAt,
    timeframe: item.timeframe ?? null,
    hasProvenance: run !== null,
  });
  const id = randomUUID();
  // I2: history may target instruments since deselected or delisted (catalog only). I3: records
  // stored earlier in this batch are visible to the link check inside the transaction.
  await insertMemory(
    sql,
    {
      id,
      agentId: item.agentId,
      type: item.type,
      scope: item.scope,
      content: item.content,
      metadata: shape.metadata,
      timeframe: item.timeframe ?? null,
      sourceRunId: run?.id ?? null,
      producerId: run?.producerId ?? null,
      runKind: run?.kind ?? null,
      createdAt: item.createdAt,
      expiresAt,
      expiryPolicy,
      idempotencyKey: null,
      requestHash: null,
      instruments: shape.instruments,
      links: shape.links.map((link) => ({
        targetMemoryId: link.targetMemoryId.toLowerCase(),
        linkType: link.linkType,
      })),
    },
    'import',
  );
  return { id, agentId: item.agentId, type: item.type, createdAt: item.createdAt, expiresAt, created: true };
}

// The one write use case (W1–W9, X1–X6) behind GraphQL, REST, the demo and the MCP tools: apply the
// domain rules, store the record in one statement, announce it once it has committed, count it.
import { randomUUID } from 'node:crypto';
import {
  IdempotencyConflictError,
  InvalidMemoryTargetError,
  MemoryValidationError,
  RunNotRunningError,
  ServiceError,
} from '../domain/errors.js';
import { stampWriteExpiry } from '../domain/expiry.js';
import { requestHash } from '../domain/idempotency.js';
import type { RunIdentity } from '../domain/types.js';
import { requireWriteShape, type WriteShapeInput } from '../domain/write-validation.js';
import { isStaleOnArrival, latenessSeconds } from '../domain/producer-health.js';
import type { Metrics } from '../metrics.js';
import type { MemoryEvents } from '../live/events.js';
import type { Database } from '../store/db.js';
import { isUniqueViolation } from '../store/errors.js';
import type { MemoryRecord } from '../records/record-shape.js';
import {
  findByIdempotencyKey,
  insertedRecord,
  storeMemory,
  type MemoryInsert,
} from '../records/record-write.js';
import { selectedInstruments } from '../store/instruments.js';
import { runStatus } from '../store/tokens.js';

/** What a run asks to write (the shape W1/W6/W7 check); provenance and expiry are the service's (W3, X1). */
export type MemoryWrite = WriteShapeInput;

export interface WrittenMemory {
  record: MemoryRecord;
  /** False when an idempotent retry returned the original record (W8): nothing new to announce. */
  created: boolean;
  /** The new record's place in its agent's commit order (L2); null for a retry. */
  seq: number | null;
}

export interface WriteDeps {
  db: Database;
  events: Pick<MemoryEvents, 'publishMemoryAdded'>;
  metrics?: Metrics;
  now: () => Date;
}

export type WriteTransport = 'graphql' | 'rest' | 'mcp' | 'demo';

/**
 * `unverified`: the run's identity was remembered, its status not read (TokenIdentities). The
 * insert checks it atomically (W9); any other answer — a refusal, an idempotent retry's record — is
 * given only after the status has been read (S6: a finished run gets UNAUTHENTICATED, as before).
 */
export async function writeMemory(
  deps: WriteDeps,
  run: RunIdentity & { producerName: string },
  input: MemoryWrite,
  transport: WriteTransport,
  unverified = false,
): Promise<WrittenMemory> {
  let written: WrittenMemory;
  try {
    written = await storeWrite(deps.db, run, input, deps.now());
    if (unverified && !written.created) await requireRunningRun(deps.db, run);
  } catch (error) {
    const refusal =
      unverified && error instanceof ServiceError && !(error instanceof RunNotRunningError)
        ? await requireRunningRun(deps.db, run).then(
            () => error,
            (notRunning: unknown) => notRunning,
          )
        : error;
    const code = refusal instanceof ServiceError ? refusal.code : 'internal_error';
    deps.metrics?.writes.inc({ transport, code });
    throw refusal;
  }
  deps.metrics?.writes.inc({ transport, code: written.created ? 'created' : 'retried' });
  if (written.created && deps.metrics) observePublication(deps.metrics, run, written.record);
  // An idempotent retry (W8) announces nothing: its record was announced when it was written.
  if (written.created && written.seq !== null) {
    const { record } = written;
    await deps.events.publishMemoryAdded({
      ...record,
      instruments: record.targets.map((target) => target.instrumentId),
      seq: written.seq,
    });
  }
  return written;
}

/** B8 on the write path, from what the write already holds: lateness (scheduled runs) and stale on arrival. */
function observePublication(
  metrics: Metrics,
  run: RunIdentity,
  record: { createdAt: Date; expiresAt: Date | null },
): void {
  if (run.evidenceBoundary !== null && run.schedule !== null) {
    metrics.publicationLateness.observe(
      { run_kind: run.kind, schedule: run.schedule },
      Math.max(0, latenessSeconds(record.createdAt, run.evidenceBoundary)),
    );
  }
  if (isStaleOnArrival(record.createdAt, record.expiresAt))
    metrics.staleOnArrival.inc({ run_kind: run.kind });
}

/** W9 outside the insert: a remembered run's status, read now (RunNotRunningError unless RUNNING). */
async function requireRunningRun(db: Database, run: { agentId: string; id: string }): Promise<void> {
  const status = await runStatus(db.sql, run.agentId, run.id);
  if (status !== 'RUNNING') throw new RunNotRunningError(run.id, status);
}

async function storeWrite(
  db: Database,
  run: RunIdentity & { producerName: string },
  input: MemoryWrite,
  now: Date,
): Promise<WrittenMemory> {
  const shape = requireWriteShape(input, 'write', run.kind);
  const key = input.idempotencyKey ?? null;
  const hash = key === null ? null : requestHash(input);
  const retryOf = async (): Promise<WrittenMemory | null> => {
    if (key === null) return null;
    const existing = await findByIdempotencyKey(db, run.agentId, run.producerId, key);
    if (existing === null) return null;
    if (existing.requestHash !== hash) throw new IdempotencyConflictError();
    return { record: existing, created: false, seq: null };
  };
  const retry = await retryOf();
  if (retry) return retry;

  // X1–X6: the backend stamps (Analysis) or validates (Trading/Review) expiry.
  const expiry = stampWriteExpiry({
    kind: run.kind,
    schedule: run.schedule,
    evidenceBoundary: run.evidenceBoundary,
    publishedAt: now,
    metadata: shape.metadata,
  });
  if (!expiry.ok) throw new MemoryValidationError(expiry.error.field, expiry.error.message);

  const row: MemoryInsert = {
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
    links: shape.links,
  };
  let seq: number;
  try {
    seq = await storeMemory(db, row);
  } catch (error) {
    // W8 under concurrency: the loser of a race on the same key answers like a retry.
    const raced = isUniqueViolation(error) ? await retryOf() : null;
    if (raced) return raced;
    // M11: the refusal lists what the agent selects, so the repair needs no other call.
    if (error instanceof InvalidMemoryTargetError)
      throw error.withSelected(await selectedInstruments(db, run.agentId));
    throw error;
  }
  return { record: insertedRecord(row, run), created: true, seq };
}

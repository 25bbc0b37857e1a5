// Legacy import (I1–I4): records stored verbatim in one transaction, expiry evaluated by the shared
// stored-expiry rules (X7–X10); any bad item stores nothing and names its index. Admin only.
import { randomUUID } from 'node:crypto';
import { ImportItemError, InputError, ServiceError } from '../domain/errors.js';
import { evaluateStoredExpiry } from '../domain/expiry.js';
import { requireWriteShape } from '../domain/write-validation.js';
import type { CommittedMemory, MemoryEvents } from '../live/events.js';
import type { Database, Sql } from '../store/db.js';
import type { WriteForm } from '../store/write-form.js';
import { findImportRun, insertMemory } from '../records/record-write.js';
import type { MemoryWrite } from './write-memory.js';

export const MAX_IMPORT_BATCH = 1000;

export interface MemoryImport extends Omit<MemoryWrite, 'idempotencyKey'> {
  agentId: string;
  sourceRunId?: string | null;
  createdAt: Date;
}

export async function importMemories(
  deps: { db: Database; events: MemoryEvents },
  items: MemoryImport[],
): Promise<CommittedMemory[]> {
  if (items.length > MAX_IMPORT_BATCH) {
    throw new InputError(`import at most ${MAX_IMPORT_BATCH} records per batch`, 'input');
  }
  const imported = await deps.db.sqlTransaction(async (sql) => {
    const stored: CommittedMemory[] = [];
    for (const [index, item] of items.entries()) {
      try {
        stored.push(await importOne(sql, item, deps.db.writeForm));
      } catch (error) {
        if (error instanceof ServiceError) throw new ImportItemError(index, error);
        throw error;
      }
    }
    return stored;
  });
  // Announced only once the whole batch has committed (I4).
  for (const memory of imported) await deps.events.publishMemoryAdded(memory);
  return imported;
}

async function importOne(sql: Sql, item: MemoryImport, form: WriteForm): Promise<CommittedMemory> {
  const shape = requireWriteShape(item, 'import', null);
  const run = await findImportRun(sql, item.agentId, item.sourceRunId);
  // I1: nothing is stamped; the expiry is evaluated by X7–X10 through the shared expiry function.
  const { expiresAt, expiryPolicy } = evaluateStoredExpiry({
    metadata: shape.metadata,
    createdAt: item.createdAt,
    timeframe: item.timeframe ?? null,
    hasProvenance: run !== null,
  });
  const id = randomUUID();
  const provenance = {
    sourceRunId: run?.id ?? null,
    producerId: run?.producerId ?? null,
    runKind: run?.kind ?? null,
  };
  // I2: history may target instruments since deselected or delisted (catalog only). I3: records
  // stored earlier in this batch are visible to the link check inside the transaction.
  const seq = await insertMemory(
    sql,
    {
      id,
      agentId: item.agentId,
      type: item.type,
      scope: item.scope,
      content: item.content,
      metadata: shape.metadata,
      timeframe: item.timeframe ?? null,
      ...provenance,
      createdAt: item.createdAt,
      expiresAt,
      expiryPolicy,
      idempotencyKey: null,
      requestHash: null,
      instruments: shape.instruments,
      links: shape.links,
    },
    'import',
    form,
  );
  return {
    id,
    agentId: item.agentId,
    type: item.type,
    createdAt: item.createdAt,
    seq,
    instruments: shape.instruments,
    producerId: provenance.producerId,
    runKind: provenance.runKind,
    expiresAt,
  };
}

// The scheduler's (admin) operations. Each is one transaction; bad input throws a typed error and writes nothing.
import { randomUUID } from 'node:crypto';
import { INSTRUMENT_ID_RULE, isInstrumentId } from '../domain/instrument-id.js';
import { generateToken, hashToken } from '../domain/tokens.js';
import { isSchedule, scheduleMs } from '../domain/schedule.js';
import { quoteInput } from '../domain/text-hygiene.js';
import type { RunKind } from '../domain/types.js';
import type { Database } from './db.js';
import { ConflictError, InputError, NotFoundError, requireStorableText } from '../domain/errors.js';
import { isUniqueViolation } from './errors.js';
import { anyAgent } from './any-agent.js';
import type { OperatorToken, Prisma, Producer } from './generated/prisma/client.js';

const terminalStatuses = ['SUCCEEDED', 'FAILED', 'CANCELLED'] as const;

/** W10: admin text bound for a text column must be storable (requireStorableText) before any rule reads it. */
export async function createAgent(db: Database, input: { name: string }) {
  requireStorableText([['name', input.name]]);
  const name = input.name.trim();
  if (!name || name.length > 128) throw new InputError('name must be 1..128 characters', 'name');
  const id = randomUUID();
  try {
    // D1: the name's uniqueness across agents is the AgentName reference table's primary key.
    const [, agent] = await db.prisma.$transaction([
      db.prisma.agentName.create({ data: { name, agentId: id } }),
      db.prisma.agent.create({ data: { id, name } }),
    ]);
    return agent;
  } catch (error) {
    if (isUniqueViolation(error))
      throw new ConflictError(`an agent named ${quoteInput(name)} exists`, 'name');
    throw error;
  }
}

export async function upsertInstrument(db: Database, input: { id: string; active: boolean }) {
  if (!isInstrumentId(input.id)) throw new InputError(`id must be ${INSTRUMENT_ID_RULE}`, 'id');
  return db.prisma.instrument.upsert({
    where: { id: input.id },
    create: { id: input.id, active: input.active },
    update: { active: input.active },
  });
}

async function requireAgent(tx: Prisma.TransactionClient, agentId: string) {
  const agent = await tx.agent.findUnique({ where: { id: agentId } });
  if (!agent) throw new NotFoundError(`agent ${agentId} does not exist`);
  return agent;
}

/** Replaces the agent's selected set; deselection keeps history (`deselectedAt`), W3 keeps old targets intact. */
export async function setAgentInstruments(db: Database, agentId: string, instrumentIds: string[], now: Date) {
  requireStorableText(instrumentIds.map((id, index) => [`instrumentIds[${index}]`, id] as const));
  const wanted = [...new Set(instrumentIds)];
  return db.prisma.$transaction(async (tx) => {
    await requireAgent(tx, agentId);
    const known = new Set(
      (await tx.instrument.findMany({ where: { id: { in: wanted } }, select: { id: true } })).map(
        (i) => i.id,
      ),
    );
    const unknownIndex = instrumentIds.findIndex((id) => !known.has(id));
    if (unknownIndex >= 0) {
      throw new InputError(
        `instrument ${quoteInput(instrumentIds[unknownIndex])} is not in the catalog (upsertInstrument first)`,
        `instrumentIds[${unknownIndex}]`,
      );
    }
    const current = await tx.agentInstrument.findMany({ where: { agentId, deselectedAt: null } });
    const currentIds = new Set(current.map((s) => s.instrumentId));
    await tx.agentInstrument.updateMany({
      where: { agentId, deselectedAt: null, instrumentId: { notIn: wanted } },
      data: { deselectedAt: now },
    });
    const added = wanted.filter((id) => !currentIds.has(id));
    if (added.length) {
      await tx.agentInstrument.createMany({
        data: added.map((instrumentId) => ({ id: randomUUID(), agentId, instrumentId, selectedAt: now })),
      });
    }
    return tx.agent.findUniqueOrThrow({ where: { id: agentId } });
  });
}

export async function createProducer(
  db: Database,
  input: { agentId: string; kind: RunKind; name: string; schedule?: string | null },
  now: Date,
) {
  requireStorableText([['name', input.name]]);
  const name = input.name.trim();
  if (!name || name.length > 128) throw new InputError('name must be 1..128 characters', 'name');
  const schedule = input.schedule ?? null;
  if (schedule !== null && !isSchedule(schedule)) {
    throw new InputError('schedule must be one of 1m 3m 5m 15m 30m 1h 2h 4h 8h 12h 1d, or null', 'schedule');
  }
  try {
    return await db.prisma.$transaction(async (tx) => {
      await requireAgent(tx, input.agentId);
      const id = randomUUID();
      const producer = await tx.producer.create({
        data: { id, agentId: input.agentId, kind: input.kind, name, schedule, enabled: true, createdAt: now },
      });
      // The history starts with the creation, so enablement "as of" any later instant is answerable (C9).
      await tx.producerEnablement.create({
        data: { id: randomUUID(), agentId: input.agentId, producerId: id, enabled: true, changedAt: now },
      });
      return producer;
    });
  } catch (error) {
    if (isUniqueViolation(error))
      throw new ConflictError(`this agent already has a producer named ${quoteInput(name)}`, 'name');
    throw error;
  }
}

/**
 * D2: a producer named by id alone is found by its (agentId, id) key probed per agent (anyAgent: on
 * Citus the one statement that visits every shard); every later statement names its agent.
 */
async function findProducer(tx: Prisma.TransactionClient, producerId: string) {
  const [producer] = await tx.$queryRawUnsafe<Producer[]>(
    `SELECT p.id, p."agentId", p.kind::text AS kind, p.name, p.schedule, p.enabled, p."createdAt"
       FROM "Producer" p WHERE ${anyAgent('p')} AND p.id = $1::uuid`,
    producerId,
  );
  if (!producer) throw new NotFoundError(`producer ${producerId} does not exist`);
  return producer;
}

export async function setProducerEnabled(db: Database, producerId: string, enabled: boolean, now: Date) {
  return db.prisma.$transaction(async (tx) => {
    const producer = await findProducer(tx, producerId);
    if (producer.enabled === enabled) return producer;
    const { agentId } = producer;
    await tx.producerEnablement.create({
      data: { id: randomUUID(), agentId, producerId, enabled, changedAt: now },
    });
    return tx.producer.update({ where: { agentId_id: { agentId, id: producerId } }, data: { enabled } });
  });
}

/** Starts a run: copies the producer's kind and schedule (immutable afterwards) and returns its token once. */
export async function startRun(
  db: Database,
  input: { producerId: string; evidenceBoundary?: Date | null },
  now: Date,
) {
  const producer = await findProducer(db.prisma, input.producerId);
  if (!producer.enabled) throw new ConflictError(`producer ${producer.name} is disabled`, 'producerId');
  const boundary = input.evidenceBoundary ?? null;
  if (producer.schedule && isSchedule(producer.schedule)) {
    if (!boundary) {
      throw new InputError(
        `producer ${producer.name} runs every ${producer.schedule}: evidenceBoundary (the candle close) is required`,
        'evidenceBoundary',
      );
    }
    if (boundary.getTime() % scheduleMs(producer.schedule) !== 0) {
      throw new InputError(
        `evidenceBoundary must be a ${producer.schedule} candle close (UTC-aligned)`,
        'evidenceBoundary',
      );
    }
  } else if (boundary) {
    throw new InputError(
      `producer ${producer.name} is unscheduled: omit evidenceBoundary`,
      'evidenceBoundary',
    );
  }
  const token = generateToken('run', producer.agentId);
  const run = await db.prisma.run.create({
    data: {
      id: randomUUID(),
      agentId: producer.agentId,
      producerId: producer.id,
      kind: producer.kind,
      schedule: producer.schedule,
      evidenceBoundary: boundary,
      status: 'RUNNING',
      startedAt: now,
      tokenHash: hashToken(token),
    },
  });
  return { run: { ...run, producerName: producer.name }, token };
}

/**
 * W9: finishing waits for writes in flight (they hold the run row FOR SHARE until they commit), and
 * `finishedAt` is never before the last record the run wrote — whatever clock stamped that record.
 * Returns the run's token hash so open connections using it can be closed at once (S6, L4).
 */
export async function finishRun(db: Database, runId: string, status: string, now: Date) {
  if (!(terminalStatuses as readonly string[]).includes(status)) {
    throw new InputError('status must be SUCCEEDED, FAILED or CANCELLED', 'status');
  }
  return db.sqlTransaction(async (sql) => {
    const [run] = await sql.query<{ status: string; agentId: string; startedAt: Date; tokenHash: string }>(
      `SELECT status, "agentId", "startedAt", "tokenHash" FROM "Run" r WHERE ${anyAgent('r')} AND id = $1 FOR UPDATE`,
      [runId],
    );
    if (!run) throw new NotFoundError(`run ${runId} does not exist`);
    // Only a RUNNING run can finish; the row lock makes a concurrent second finish lose cleanly.
    if (run.status !== 'RUNNING')
      throw new ConflictError(`run ${runId} already finished as ${run.status}`, 'runId');
    await sql.query(
      `UPDATE "Run" SET status = $2::"RunStatus", "finishedAt" = GREATEST($3::timestamptz, (
         SELECT m."createdAt" FROM "Memory" m
          WHERE m."agentId" = $4 AND m."createdAt" >= $5 AND m."sourceRunId" = $1
          ORDER BY m."createdAt" DESC LIMIT 1))
        WHERE "agentId" = $4 AND id = $1`,
      [runId, status, now, run.agentId, run.startedAt],
    );
    return { tokenHash: run.tokenHash, agentId: run.agentId };
  });
}

export async function createOperatorToken(db: Database, agentId: string, label?: string | null) {
  const agent = await db.prisma.agent.findUnique({ where: { id: agentId } });
  if (!agent) throw new NotFoundError(`agent ${agentId} does not exist`);
  requireStorableText([['label', label]]);
  const trimmed = label?.trim() || null;
  if (trimmed && trimmed.length > 128) throw new InputError('label must be at most 128 characters', 'label');
  const token = generateToken('op', agentId);
  const operatorToken = await db.prisma.operatorToken.create({
    data: { id: randomUUID(), agentId, label: trimmed, tokenHash: hashToken(token) },
  });
  return { token, agentId, operatorToken };
}

/** S6: a revoked token authenticates nothing from now on; revoking twice keeps the first instant. */
export async function revokeOperatorToken(db: Database, id: string, now: Date) {
  const [operatorToken] = await db.sql.query<OperatorToken>(
    `UPDATE "OperatorToken" o SET "revokedAt" = coalesce(o."revokedAt", $2)
      WHERE ${anyAgent('o')} AND o.id = $1
      RETURNING o.id, o."agentId", o.label, o."tokenHash", o."createdAt", o."revokedAt"`,
    [id, now],
  );
  if (!operatorToken) throw new NotFoundError(`operator token ${id} does not exist`);
  return operatorToken;
}

// The statements of the scheduler's (admin) operations; their rules are service/admin.ts'. Each is
// one transaction; a missing agent, producer or run, or a name taken, throws a typed error.
import { randomUUID } from 'node:crypto';
import { hashToken } from '../domain/tokens.js';
import { quoteInput } from '../domain/text-hygiene.js';
import type { RunKind, RunStatus } from '../domain/types.js';
import type { Database } from './db.js';
import { ConflictError, InputError, NotFoundError } from '../domain/errors.js';
import { isUniqueViolation } from './errors.js';
import { anyAgent } from './any-agent.js';
import type { OperatorToken, Prisma, Producer } from './generated/prisma/client.js';

/** D1: the name's uniqueness across agents is the AgentName reference table's primary key. */
export async function insertAgent(db: Database, name: string) {
  const id = randomUUID();
  try {
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

/** One transaction: every id must be in the catalog (the error names the first that is not). */
export async function replaceAgentInstruments(
  db: Database,
  agentId: string,
  instrumentIds: string[],
  now: Date,
) {
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

/** The producer and the first entry of its enablement history, in one transaction. */
export async function insertProducer(
  db: Database,
  input: { agentId: string; kind: RunKind; name: string; schedule: string | null },
  now: Date,
) {
  const { agentId, kind, name, schedule } = input;
  try {
    return await db.prisma.$transaction(async (tx) => {
      await requireAgent(tx, agentId);
      const id = randomUUID();
      const producer = await tx.producer.create({
        data: { id, agentId, kind, name, schedule, enabled: true, createdAt: now },
      });
      // The history starts with the creation, so enablement "as of" any later instant is answerable (C9).
      await tx.producerEnablement.create({
        data: { id: randomUUID(), agentId, producerId: id, enabled: true, changedAt: now },
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
export async function findProducer(tx: Prisma.TransactionClient, producerId: string) {
  const [producer] = await tx.$queryRawUnsafe<Producer[]>(
    `SELECT p.id, p."agentId", p.kind::text AS kind, p.name, p.schedule, p.enabled, p."createdAt"
       FROM "Producer" p WHERE ${anyAgent('p')} AND p.id = $1::uuid`,
    producerId,
  );
  if (!producer) throw new NotFoundError(`producer ${producerId} does not exist`);
  return producer;
}

/** C9: every change of enablement is kept with its instant; setting the current value changes nothing. */
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

/** The run with the producer's kind and schedule copied, storing only its token's hash. */
export async function insertRun(
  db: Database,
  producer: Producer,
  evidenceBoundary: Date | null,
  token: string,
  now: Date,
) {
  return db.prisma.run.create({
    data: {
      id: randomUUID(),
      agentId: producer.agentId,
      producerId: producer.id,
      kind: producer.kind,
      schedule: producer.schedule,
      evidenceBoundary,
      status: 'RUNNING',
      startedAt: now,
      tokenHash: hashToken(token),
    },
  });
}

/**
 * W9: finishing waits for writes in flight (they hold the run row FOR SHARE until they commit), and
 * `finishedAt` is never before the last record the run wrote — whatever clock stamped that record.
 * Returns the run's token hash so open connections using it can be closed at once (S6, L4).
 */
export async function finishRun(db: Database, runId: string, status: RunStatus, now: Date) {
  return db.sqlTransaction(async (sql) => {
    // D2: the run's agent by an unlocked probe first, then the row lock on the agent's shard alone
    // (Citus refuses FOR UPDATE on a statement that visits several shards).
    const [owner] = await sql.query<{ agentId: string }>(
      `SELECT r."agentId" FROM "Run" r WHERE ${anyAgent('r')} AND r.id = $1`,
      [runId],
    );
    const [run] = owner
      ? await sql.query<{ status: string; agentId: string; startedAt: Date; tokenHash: string }>(
          `SELECT status, "agentId", "startedAt", "tokenHash" FROM "Run" WHERE "agentId" = $2 AND id = $1 FOR UPDATE`,
          [runId, owner.agentId],
        )
      : [];
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

/** The token of an existing agent, stored only as its hash. */
export async function insertOperatorToken(
  db: Database,
  agentId: string,
  label: string | null,
  token: string,
) {
  const agent = await db.prisma.agent.findUnique({ where: { id: agentId } });
  if (!agent) throw new NotFoundError(`agent ${agentId} does not exist`);
  return db.prisma.operatorToken.create({
    data: { id: randomUUID(), agentId, label, tokenHash: hashToken(token) },
  });
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

// The scheduler's operations (admin token): the rules each one keeps before its statements
// (store/admin.ts) run, and what the rest of the server learns when a run or a token ends.
// Bad input throws a typed error before anything is written.
import { INSTRUMENT_ID_RULE, isInstrumentId } from '../domain/instrument-id.js';
import { ConflictError, InputError, requireStorableText } from '../domain/errors.js';
import { isSchedule, scheduleMs } from '../domain/schedule.js';
import { generateToken } from '../domain/tokens.js';
import type { RunKind, RunStatus } from '../domain/types.js';
import type { MemoryEvents } from '../live/events.js';
import type { TokenSessions } from '../live/token-sessions.js';
import * as store from '../store/admin.js';
import type { Database } from '../store/db.js';
import type { Producer } from '../store/generated/prisma/client.js';

/** What a run's start and end and a token's revocation tell the server (L4, S6, W9). */
export interface AdminDeps {
  db: Database;
  /** Open sessions of a token that stopped authenticating end at once. */
  sessions: Pick<TokenSessions, 'revoke'>;
  /** Subscribers of `runChanged` learn a run's status on every instance. */
  events: Pick<MemoryEvents, 'publishRunChanged'>;
}

const MAX_NAME = 128;
const TERMINAL_STATUSES: readonly RunStatus[] = ['SUCCEEDED', 'FAILED', 'CANCELLED'];

/** W10: admin text bound for a text column must be storable before any rule reads it. */
function requireName(name: string): string {
  requireStorableText([['name', name]]);
  const trimmed = name.trim();
  if (!trimmed || trimmed.length > MAX_NAME)
    throw new InputError(`name must be 1..${MAX_NAME} characters`, 'name');
  return trimmed;
}

export async function createAgent(db: Database, input: { name: string }) {
  return store.insertAgent(db, requireName(input.name));
}

/** V1: the venue's exact name. */
export async function upsertInstrument(db: Database, input: { id: string; active: boolean }) {
  if (!isInstrumentId(input.id)) throw new InputError(`id must be ${INSTRUMENT_ID_RULE}`, 'id');
  return store.upsertInstrument(db, input);
}

/** Replaces the agent's selected set; deselection keeps history (`deselectedAt`), W3 keeps old targets intact. */
export async function setAgentInstruments(db: Database, agentId: string, instrumentIds: string[], now: Date) {
  requireStorableText(instrumentIds.map((id, index) => [`instrumentIds[${index}]`, id] as const));
  return store.replaceAgentInstruments(db, agentId, instrumentIds, now);
}

export async function createProducer(
  db: Database,
  input: { agentId: string; kind: RunKind; name: string; schedule?: string | null },
  now: Date,
) {
  const name = requireName(input.name);
  const schedule = input.schedule ?? null;
  if (schedule !== null && !isSchedule(schedule)) {
    throw new InputError('schedule must be one of 1m 3m 5m 15m 30m 1h 2h 4h 8h 12h 1d, or null', 'schedule');
  }
  return store.insertProducer(db, { agentId: input.agentId, kind: input.kind, name, schedule }, now);
}

export async function setProducerEnabled(db: Database, producerId: string, enabled: boolean, now: Date) {
  return store.setProducerEnabled(db, producerId, enabled, now);
}

/**
 * A scheduled producer's run names the candle close it analyses (UTC-aligned to its schedule);
 * an unscheduled producer's run names none.
 */
function requireEvidenceBoundary(producer: Producer, boundary: Date | null): void {
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
}

/** Starts a run of an enabled producer: its kind and schedule are copied (immutable); the token is returned once. */
export async function startRun(
  deps: AdminDeps,
  input: { producerId: string; evidenceBoundary?: Date | null },
  now: Date,
) {
  const producer = await store.findProducer(deps.db.prisma, input.producerId);
  if (!producer.enabled) throw new ConflictError(`producer ${producer.name} is disabled`, 'producerId');
  const boundary = input.evidenceBoundary ?? null;
  requireEvidenceBoundary(producer, boundary);
  const token = generateToken('run', producer.agentId);
  const run = await store.insertRun(deps.db, producer, boundary, token, now);
  await deps.events.publishRunChanged({ runId: run.id, agentId: run.agentId, status: 'RUNNING' });
  return { run: { ...run, producerName: producer.name }, token };
}

/** W9: a run finishes once, after its writes in flight; its token's open sessions end now (L4). */
export async function finishRun(deps: AdminDeps, runId: string, status: RunStatus, now: Date) {
  if (!TERMINAL_STATUSES.includes(status)) {
    throw new InputError('status must be SUCCEEDED, FAILED or CANCELLED', 'status');
  }
  const { tokenHash, agentId } = await store.finishRun(deps.db, runId, status, now);
  deps.sessions.revoke(tokenHash);
  await deps.events.publishRunChanged({ runId, agentId, status });
  return { agentId };
}

/** A new operator token for one agent; `label` (≤ 128 characters) says who it is for. */
export async function createOperatorToken(db: Database, agentId: string, label?: string | null) {
  requireStorableText([['label', label]]);
  const trimmed = label?.trim() || null;
  if (trimmed && trimmed.length > MAX_NAME) {
    throw new InputError(`label must be at most ${MAX_NAME} characters`, 'label');
  }
  const token = generateToken('op', agentId);
  const operatorToken = await store.insertOperatorToken(db, agentId, trimmed, token);
  return { token, agentId, operatorToken };
}

/** S6, S10: the token authenticates nothing from now on; its open sessions here end at once. */
export async function revokeOperatorToken(deps: AdminDeps, id: string, now: Date) {
  const revoked = await store.revokeOperatorToken(deps.db, id, now);
  deps.sessions.revoke(revoked.tokenHash);
  return revoked;
}

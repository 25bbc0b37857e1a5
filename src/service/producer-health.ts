// Producer health over a window (B8): the store's runs and records, the domain's cycles and status.
// One use case for GraphQL and MCP.
import { InputError } from '../domain/errors.js';
import {
  decideHealth,
  enabledSegments,
  MAX_HEALTH_CYCLES,
  countCycles,
  statusBoundaries,
  type CycleOutcome,
  type ProducerHealthStatus,
  type ScheduleSegment,
} from '../domain/producer-health.js';
import { isSchedule } from '../domain/schedule.js';
import { resolveTimeWindow, type TimeWindowArgs } from '../domain/time-window.js';
import type { RunKind } from '../domain/types.js';
import type { Database } from '../store/db.js';
import type { Run } from '../store/generated/prisma/client.js';
import { loadHealthCycles, loadHealthProducers, type ProducerHealthRow } from '../store/producer-health.js';
import type { RunWithCount } from '../store/runs.js';

export interface HealthProducer {
  id: string;
  agentId: string;
  kind: RunKind;
  name: string;
  schedule: string | null;
  enabled: boolean;
  createdAt: Date;
}

export interface ProducerHealthView {
  producer: HealthProducer;
  status: ProducerHealthStatus;
  lastRun: RunWithCount | null;
  lastRecordAt: Date | null;
  nextBoundary: Date | null;
  cyclesExpected: number;
  cyclesWithRecord: number;
  missedBoundaries: Date[];
  latenessP50Seconds: number | null;
  latenessP95Seconds: number | null;
  latenessMaxSeconds: number | null;
  staleOnArrival: number;
  failedRuns: number;
  cancelledRuns: number;
  emptyRuns: number;
}

const dateOf = (value: number | null) => (value === null ? null : new Date(value));
/** Instants are stored to the millisecond: so are lateness figures (no float noise of the percentile). */
const seconds = (value: number | null | undefined) =>
  value === null || value === undefined ? null : Math.round(value * 1000) / 1000;

function lastRunOf(row: ProducerHealthRow): RunWithCount | null {
  const run = row.lastRun;
  if (!run) return null;
  const shaped: Run = {
    ...run,
    startedAt: new Date(run.startedAt),
    finishedAt: dateOf(run.finishedAt),
    evidenceBoundary: dateOf(run.evidenceBoundary),
  };
  return { ...shaped, recordCount: row.lastRunRecords ?? 0 };
}

function segmentsOf(row: ProducerHealthRow): ScheduleSegment[] {
  if (row.schedule === null || !isSchedule(row.schedule)) return [];
  return enabledSegments({
    schedule: row.schedule,
    createdAt: new Date(row.createdAt),
    changes: row.toggles.map((t) => ({ enabled: t.enabled, at: new Date(t.at) })),
  });
}

/** B8: the health of every producer of the agent over `window` (default: the last 24 h), evaluated at `now`. */
export async function loadProducerHealth(
  db: Database,
  agentId: string,
  windowInput: TimeWindowArgs | null | undefined,
  now: Date,
): Promise<ProducerHealthView[]> {
  const resolved = resolveTimeWindow(windowInput ?? { rolling: 'LAST_24H' }, now);
  if (!resolved.ok) throw new InputError(resolved.error.message, resolved.error.field);
  return loadHealthOf(db, [agentId], resolved.window, now);
}

/** B8 for the producers of several agents at once (the admin's fleet): the same two statements. */
export async function loadHealthOf(
  db: Database,
  agentIds: readonly string[],
  window: { from: Date; to: Date },
  now: Date,
): Promise<ProducerHealthView[]> {
  if (agentIds.length === 0) return [];
  const producers = await loadHealthProducers(db, agentIds, window);
  const segments = new Map(producers.map((p) => [p.id, segmentsOf(p)]));
  let statusFrom = now.getTime();
  for (const [id, parts] of segments) {
    if (countCycles(parts, window, now) > MAX_HEALTH_CYCLES) {
      const name = producers.find((p) => p.id === id)?.name ?? id;
      throw new InputError(
        `The window holds more than ${MAX_HEALTH_CYCLES} cycles of producer ${name}; choose a shorter one`,
        'window',
      );
    }
    for (const b of statusBoundaries(parts, now)) statusFrom = Math.min(statusFrom, b);
  }
  const { cycles, lateness } = await loadHealthCycles(db, agentIds, window, new Date(statusFrom));
  const outcomes = new Map<string, Map<number, CycleOutcome>>();
  for (const c of cycles) {
    let byBoundary = outcomes.get(c.producerId);
    if (!byBoundary) outcomes.set(c.producerId, (byBoundary = new Map()));
    byBoundary.set(Number(c.boundary), { freshOnArrival: c.freshOnArrival });
  }
  const latenessOf = new Map(lateness.map((l) => [l.producerId, l]));
  return producers.map((row) => {
    const schedule = row.schedule !== null && isSchedule(row.schedule) ? row.schedule : null;
    const decided = decideHealth({
      schedule,
      enabledNow: row.enabled,
      segments: segments.get(row.id) ?? [],
      window,
      now,
      cycles: outcomes.get(row.id) ?? new Map(),
    });
    const late = latenessOf.get(row.id);
    return {
      producer: {
        id: row.id,
        agentId: row.agentId,
        kind: row.kind,
        name: row.name,
        schedule: row.schedule,
        enabled: row.enabled,
        createdAt: new Date(row.createdAt),
      },
      ...decided,
      lastRun: lastRunOf(row),
      lastRecordAt: dateOf(row.lastRecordAt),
      latenessP50Seconds: seconds(late?.p50),
      latenessP95Seconds: seconds(late?.p95),
      latenessMaxSeconds: seconds(late?.max),
      staleOnArrival: late?.staleOnArrival ?? 0,
      failedRuns: row.failedRuns,
      cancelledRuns: row.cancelledRuns,
      emptyRuns: row.emptyRuns,
    };
  });
}

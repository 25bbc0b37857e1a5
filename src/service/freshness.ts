// The freshness board and timeline (B9): the trading context's own answer (loadTradingContext,
// decideTradingContext) per selected instrument at an instant, and over a bounded range.
import { InputError } from '../domain/errors.js';
import { laneIntervals, type FreshInterval, type LaneRecord } from '../domain/freshness-timeline.js';
import type { Database } from '../store/db.js';
import {
  decisionIdsInRange,
  firstCorrections,
  instrumentsSelectedAt,
  laneRecordsInRange,
  latestDecisions,
  producerToggles,
} from '../store/freshness.js';
import { loadContextCandidates } from '../store/trading-context.js';
import { loadTradingContext } from './trading-context.js';

export type FreshnessState = 'FRESH' | 'STALE' | 'DISABLED' | 'NONE';

/** B9: a timeline covers at most this long a range … */
export const MAX_TIMELINE_DAYS = 7;
/** … and at most this many records of the instrument created inside it. */
export const MAX_TIMELINE_RECORDS = 5_000;
/** Decisions listed on a timeline. */
export const MAX_TIMELINE_DECISIONS = 1_000;

export interface BoardGroupView {
  producerId: string;
  type: string;
  state: FreshnessState;
  memoryId: string | null;
  expiresAt: Date | null;
}
export interface BoardInstrumentView {
  instrument: string;
  groups: BoardGroupView[];
  latestDecisionId: string | null;
  decisionFreshEvidence: number | null;
  decisionStaleEvidence: number | null;
}
export interface FreshnessBoardView {
  agentId: string;
  at: Date;
  instruments: BoardInstrumentView[];
}

const laneKey = (producerId: string, type: string) => JSON.stringify([producerId, type]);

/**
 * B9: per instrument selected at `at`, each (producer, type) group as tradingContext(instrument, at)
 * reports it (its first entry in the context's order: FRESH first, newest), NONE where the
 * instrument has no record of a group another instrument has.
 */
export async function loadFreshnessBoard(
  db: Database,
  agentId: string,
  at: Date,
): Promise<FreshnessBoardView> {
  const instruments = await instrumentsSelectedAt(db, agentId, at);
  const contexts = await Promise.all(
    instruments.map((instrument) => loadTradingContext(db, { agentId, instrument, at })),
  );
  const decisions = new Map(
    (await latestDecisions(db, agentId, instruments, at)).map((row) => [row.instrument, row]),
  );
  const lanes = new Map<string, { producerId: string; type: string }>();
  const perInstrument = contexts.map((context) => {
    const groups = new Map<string, BoardGroupView>();
    for (const entry of context.entries) {
      const key = laneKey(entry.provenance.producerId, entry.type);
      if (groups.has(key)) continue;
      lanes.set(key, { producerId: entry.provenance.producerId, type: entry.type });
      groups.set(key, {
        producerId: entry.provenance.producerId,
        type: entry.type,
        state: entry.status,
        memoryId: entry.memoryId,
        expiresAt: entry.expiresAt,
      });
    }
    return groups;
  });
  const order = [...lanes.entries()].sort(([, a], [, b]) =>
    a.type === b.type ? (a.producerId < b.producerId ? -1 : 1) : a.type < b.type ? -1 : 1,
  );
  return {
    agentId,
    at,
    instruments: instruments.map((instrument, i) => {
      const decision = decisions.get(instrument);
      return {
        instrument,
        groups: order.map(
          ([key, lane]) =>
            perInstrument[i]!.get(key) ?? { ...lane, state: 'NONE', memoryId: null, expiresAt: null },
        ),
        latestDecisionId: decision?.id ?? null,
        decisionFreshEvidence: decision?.id ? (decision.fresh ?? 0) : null,
        decisionStaleEvidence: decision?.id ? (decision.stale ?? 0) : null,
      };
    }),
  };
}

export interface TimelineLaneView {
  producerId: string;
  type: string;
  intervals: FreshInterval[];
}
export interface FreshnessTimelineView {
  agentId: string;
  instrument: string;
  lanes: TimelineLaneView[];
  decisionIds: string[];
}

function checkRange(from: Date, to: Date): void {
  if (to.getTime() <= from.getTime()) throw new InputError('to must be after from', 'to');
  if (to.getTime() - from.getTime() > MAX_TIMELINE_DAYS * 86_400_000)
    throw new InputError(`A timeline covers at most ${MAX_TIMELINE_DAYS} days`, 'to');
}

/** C3 at any instant of the range: the producer's latest toggle at or before it (none ⇒ enabled). */
function enablementOf(toggles: { producerId: string; enabled: boolean; at: number }[]) {
  return (producerId: string, at: Date): boolean => {
    let enabled = true;
    for (const toggle of toggles) {
      if (toggle.at > at.getTime()) break;
      if (toggle.producerId === producerId) enabled = toggle.enabled;
    }
    return enabled;
  };
}

/** B9: per (producer, type) lane of the instrument the intervals in [from, to) its then-latest record was FRESH. */
export async function loadFreshnessTimeline(
  db: Database,
  query: { agentId: string; instrument: string; from: Date; to: Date },
): Promise<FreshnessTimelineView> {
  checkRange(query.from, query.to);
  const { agentId, from, to } = query;
  const atStart = await loadContextCandidates(db, { agentId, instrument: query.instrument, at: from });
  const inRange = await laneRecordsInRange(db, query, MAX_TIMELINE_RECORDS + 1);
  if (inRange.length > MAX_TIMELINE_RECORDS)
    throw new InputError(
      `More than ${MAX_TIMELINE_RECORDS} records in the range; choose a shorter one`,
      'from',
    );
  const records = [
    ...atStart.entries,
    ...inRange.map((r) => ({
      ...r,
      createdAt: new Date(r.createdAt),
      expiresAt: r.expiresAt === null ? null : new Date(r.expiresAt),
    })),
  ];
  const [corrected, toggles, decisionIds] = await Promise.all([
    firstCorrections(
      db,
      agentId,
      records.map((r) => r.id),
      to,
    ),
    producerToggles(db, agentId, to),
    decisionIdsInRange(db, query, MAX_TIMELINE_DECISIONS),
  ]);
  const byLane = new Map<string, LaneRecord[]>();
  for (const r of records) {
    const key = laneKey(r.producerId, r.type);
    const lane = byLane.get(key) ?? [];
    lane.push({
      id: r.id,
      producerId: r.producerId,
      type: r.type,
      scope: r.scope,
      createdAt: r.createdAt,
      expiresAt: r.expiresAt,
      corrected: corrected.has(r.id),
    });
    byLane.set(key, lane);
  }
  const enabledAt = enablementOf(toggles);
  const lanes = [...byLane.values()]
    .map((lane) => {
      const { producerId, type } = lane[0]!;
      const own = toggles.filter((t) => t.producerId === producerId).map((t) => new Date(t.at));
      return {
        producerId,
        type,
        intervals: laneIntervals({ records: lane, from, to, enabledAt, toggles: own }),
      };
    })
    .sort((a, b) => (a.type === b.type ? (a.producerId < b.producerId ? -1 : 1) : a.type < b.type ? -1 : 1));
  return { agentId, instrument: query.instrument, lanes, decisionIds };
}

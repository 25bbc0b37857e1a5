// Decides what the trading context shows (C2–C7) over candidates the store already filtered by C1.
import { freshnessAt } from './expiry.js';
import type { MemoryLink, MemoryScope } from './types.js';

/** C4: the complete research of a FRESH entry or correction. */
export interface ContextResearch {
  content: string;
  metadata: unknown;
  timeframe: string | null;
  instruments: string[];
  links: MemoryLink[];
}

export interface ContextCandidate {
  id: string;
  producerId: string;
  type: string;
  scope: MemoryScope;
  createdAt: Date;
  expiresAt: Date | null;
}

export interface CorrectionCandidate extends ContextCandidate {
  correctionTargetIds: string[];
}

export type ContextStatus = 'FRESH' | 'STALE' | 'DISABLED';
export type CorrectionStatus = 'FRESH' | 'STALE' | 'SUPERSEDED';

export interface ContextEntryDecision<T extends ContextCandidate> {
  record: T;
  status: ContextStatus;
  withResearch: boolean;
}

export interface ContextCorrectionDecision<T extends CorrectionCandidate> {
  record: T;
  status: CorrectionStatus;
  expiresAt: Date | null;
  correctionTargetIds: string[];
  withResearch: boolean;
}

/** Newest first; equal createdAt ⇒ greater id first (C2, C4). Ids compare as lowercase UUID strings. */
export function compareNewestFirst(
  a: { createdAt: Date; id: string },
  b: { createdAt: Date; id: string },
): number {
  const byTime = b.createdAt.getTime() - a.createdAt.getTime();
  if (byTime !== 0) return byTime;
  const ai = a.id.toLowerCase();
  const bi = b.id.toLowerCase();
  return ai === bi ? 0 : ai > bi ? -1 : 1;
}

function latestBy<T extends { createdAt: Date; id: string }>(items: T[], keyOf: (item: T) => string): T[] {
  const latest = new Map<string, T>();
  for (const item of items) {
    const key = keyOf(item);
    const current = latest.get(key);
    if (current === undefined || compareNewestFirst(item, current) < 0) latest.set(key, item);
  }
  return [...latest.values()].sort(compareNewestFirst);
}

/** C2: latest per (producer, type, scope); latest createdAt, tie ⇒ greater id (string compare of lowercase UUID). */
export function selectLatestPerGroup<T extends ContextCandidate>(candidates: T[]): T[] {
  return latestBy(candidates, (c) => JSON.stringify([c.producerId, c.type, c.scope]));
}

/** C6: a correction's targets as a sorted, de-duplicated list of lowercase ids. */
export function normaliseCorrectionTargets(ids: string[]): string[] {
  return [...new Set(ids.map((id) => id.toLowerCase()))].sort();
}

// C4: FRESH first, then the rest; newest first inside each part.
function orderFreshFirst<D extends { status: string; record: { createdAt: Date; id: string } }>(
  decisions: D[],
): D[] {
  return [...decisions].sort((a, b) => {
    const fa = a.status === 'FRESH' ? 0 : 1;
    const fb = b.status === 'FRESH' ? 0 : 1;
    return fa !== fb ? fa - fb : compareNewestFirst(a.record, b.record);
  });
}

// C7: null means "never expires", so it loses every min and wins every max.
function minExpiry(a: Date | null, b: Date | null): Date | null {
  if (a === null) return b;
  if (b === null) return a;
  return a.getTime() <= b.getTime() ? a : b;
}

function maxExpiry(a: Date | null, b: Date | null): Date | null {
  if (a === null || b === null) return null;
  return a.getTime() >= b.getTime() ? a : b;
}

/** C2–C7 and C11 over candidates already filtered by C1 (agent, Analysis, scope/instrument, createdAt <= at); `enabledAt(producerId)` answers producer enablement at `at`. */
export function decideTradingContext<E extends ContextCandidate, K extends CorrectionCandidate>(input: {
  at: Date;
  candidates: E[];
  corrections: K[];
  enabledAt: (producerId: string) => boolean;
}): { entries: ContextEntryDecision<E>[]; corrections: ContextCorrectionDecision<K>[] } {
  const { at, enabledAt } = input;

  // C3: disabled beats stale; only FRESH entries carry research (C4).
  const entries = orderFreshFirst(
    selectLatestPerGroup(input.candidates).map((record): ContextEntryDecision<E> => {
      const status: ContextStatus = !enabledAt(record.producerId)
        ? 'DISABLED'
        : freshnessAt(record.expiresAt, at) === 'STALE'
          ? 'STALE'
          : 'FRESH';
      return { record, status, withResearch: status === 'FRESH' };
    }),
  );

  // C7: an original is current when it is a kept, FRESH entry.
  const current = new Map<string, Date | null>();
  for (const e of entries)
    if (e.status === 'FRESH') current.set(e.record.id.toLowerCase(), e.record.expiresAt);

  // C6: group by (producer, scope, target set), ignoring the type name.
  const normalised = input.corrections.map((record) => ({
    record,
    targets: normaliseCorrectionTargets(record.correctionTargetIds),
    createdAt: record.createdAt,
    id: record.id,
  }));
  // C11: a correction stays listed only while one of its originals is a kept entry (any status).
  const keptIds = new Set(entries.map((e) => e.record.id.toLowerCase()));
  const kept = latestBy(normalised, (c) =>
    JSON.stringify([c.record.producerId, c.record.scope, c.targets]),
  ).filter((c) => c.targets.some((t) => keptIds.has(t)));

  const corrections = orderFreshFirst(
    kept.map(({ record, targets }): ContextCorrectionDecision<K> => {
      const currentTargets = targets.filter((t) => current.has(t));
      if (currentTargets.length === 0) {
        return {
          record,
          status: 'SUPERSEDED',
          expiresAt: record.expiresAt,
          correctionTargetIds: targets,
          withResearch: false,
        };
      }
      let latestOriginal: Date | null = current.get(currentTargets[0]!) ?? null;
      for (const t of currentTargets) latestOriginal = maxExpiry(latestOriginal, current.get(t) ?? null);
      const expiresAt = minExpiry(record.expiresAt, latestOriginal);
      const status: CorrectionStatus = freshnessAt(record.expiresAt, at) === 'STALE' ? 'STALE' : 'FRESH';
      return { record, status, expiresAt, correctionTargetIds: targets, withResearch: status === 'FRESH' };
    }),
  );

  return { entries, corrections };
}

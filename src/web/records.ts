// The list of shown records: newest first, each record once, whatever order pages and live events arrive in.
import type { Memory, MemoryEdge, MemoryFilter, ResolvedWindow } from './queries.js';

/** Newest first; equal instants ⇒ greater id first (the server's keyset order). */
/** Newest first; equal instants by id, greater first. */
export function compareEdges(a: MemoryEdge, b: MemoryEdge): number {
  const byTime = Date.parse(b.node.createdAt) - Date.parse(a.node.createdAt);
  if (byTime !== 0) return byTime;
  return a.node.id < b.node.id ? 1 : a.node.id > b.node.id ? -1 : 0;
}

/** B5: merges new edges into the shown ones, deduplicated by id and kept newest first. */
export function mergeEdges(shown: readonly MemoryEdge[], incoming: readonly MemoryEdge[]): MemoryEdge[] {
  const byId = new Map<string, MemoryEdge>();
  for (const edge of shown) byId.set(edge.node.id, edge);
  let changed = false;
  for (const edge of incoming) {
    if (byId.has(edge.node.id)) continue;
    byId.set(edge.node.id, edge);
    changed = true;
  }
  if (!changed) return shown as MemoryEdge[];
  return [...byId.values()].sort(compareEdges);
}

/**
 * A live record is shown only if it matches the active filter (B5). The server filters already; this
 * guards the list against a stale subscription delivering after the filter changed.
 */
export function matchesFilter(memory: Memory, filter: MemoryFilter, window: ResolvedWindow | null): boolean {
  if (filter.types?.length && !filter.types.includes(memory.type)) return false;
  if (filter.window && window) {
    const created = Date.parse(memory.createdAt);
    if (created < Date.parse(window.from)) return false;
    // Rolling windows end "now" and keep accepting newer records; date ranges end at a local midnight.
    if (!filter.window.rolling && created >= Date.parse(window.to)) return false;
  }
  return true;
}

/** Freshness at `now`: the server's answer, turned STALE once the expiry passes while the page is open. */
export function freshnessAt(memory: Memory, now: number): 'FRESH' | 'STALE' {
  if (memory.freshness === 'STALE') return 'STALE';
  if (memory.expiresAt && now >= Date.parse(memory.expiresAt)) return 'STALE';
  return 'FRESH';
}

/** The DOM id of a record's card: links jump to it, "Load older" focuses it. */
export function recordElementId(id: string): string {
  return `memory-${id}`;
}

export function isCorrection(memory: Memory): boolean {
  return memory.links.some((link) => link.linkType === 'corrects');
}

/** The structured handoff layout agents are asked to use (metadata.handoff_version = 1). */
export interface Handoff {
  evidenceBoundary: unknown;
  sources: unknown;
  observations: unknown;
  interpretation: unknown;
  rest: Record<string, unknown>;
}

export function readHandoff(metadata: unknown): Handoff | null {
  if (!metadata || typeof metadata !== 'object' || Array.isArray(metadata)) return null;
  const record = metadata as Record<string, unknown>;
  if (record.handoff_version !== 1) return null;
  const {
    handoff_version: _version,
    evidence_boundary: evidenceBoundary,
    sources,
    observations,
    interpretation,
    ...rest
  } = record;
  return { evidenceBoundary, sources, observations, interpretation, rest };
}

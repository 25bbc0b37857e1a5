// The trading context use case (C1–C9): the store's candidates, the pure decision of what to show,
// and the projection that gives research only to FRESH records (C4, C7).
import {
  decideTradingContext,
  type ContextResearch,
  type ContextStatus,
  type CorrectionStatus,
} from '../domain/trading-context.js';
import type { MemoryScope, Provenance } from '../domain/types.js';
import type { Database } from '../store/db.js';
import { loadContextCandidates, type ContextQuery, type Shown } from '../store/trading-context.js';
import type { TokenLiveness } from '../store/tokens.js';

export interface ContextEntryView {
  memoryId: string;
  type: string;
  scope: MemoryScope;
  status: ContextStatus;
  provenance: Provenance;
  createdAt: Date;
  expiresAt: Date | null;
  expiryPolicy: string | null;
  research: ContextResearch | null;
}

export interface ContextCorrectionView {
  memoryId: string;
  type: string;
  scope: MemoryScope;
  status: CorrectionStatus;
  correctionTargetIds: string[];
  provenance: Provenance;
  createdAt: Date;
  /** C7: min(own expiry, latest expiry among its current originals). */
  expiresAt: Date | null;
  research: ContextResearch | null;
}

export interface TradingContextView {
  entries: ContextEntryView[];
  corrections: ContextCorrectionView[];
}

// C4/C7: research only with a FRESH status; a FRESH record is unexpired at `at`, so the statement returned it.
function researchOf(record: Shown & { id: string }, withResearch: boolean): ContextResearch | null {
  if (!withResearch) return null;
  if (!record.research) throw new Error(`research of FRESH record ${record.id} was not loaded`);
  return record.research;
}

/** The trading context of one agent for one instrument as of `at` (C1–C9); learnings are separate (C10). */
export async function loadTradingContext(
  db: Database,
  query: ContextQuery,
  liveness: TokenLiveness | null = null,
): Promise<TradingContextView> {
  const { entries, corrections, enabledAt } = await loadContextCandidates(db, query, liveness);
  const decided = decideTradingContext({ at: query.at, candidates: entries, corrections, enabledAt });
  return {
    entries: decided.entries.map(({ record, status, withResearch }) => ({
      memoryId: record.id,
      type: record.type,
      scope: record.scope,
      status,
      provenance: record.provenance,
      createdAt: record.createdAt,
      expiresAt: record.expiresAt,
      expiryPolicy: record.expiryPolicy,
      research: researchOf(record, withResearch),
    })),
    corrections: decided.corrections.map(
      ({ record, status, expiresAt, correctionTargetIds, withResearch }) => ({
        memoryId: record.id,
        type: record.type,
        scope: record.scope,
        status,
        correctionTargetIds,
        provenance: record.provenance,
        createdAt: record.createdAt,
        expiresAt,
        research: researchOf(record, withResearch),
      }),
    ),
  };
}

// The record page's and the Context tab's operations (B6, C9), with the shapes they return.
import { MEMORY_FIELDS, type Memory, type Provenance } from './queries.js';

export interface Backlink {
  linkType: string;
  sourceMemoryId: string;
  sourceType: string;
  sourceCreatedAt: string;
}

export interface Research {
  content: string;
  metadata: unknown;
  timeframe: string | null;
  instruments: string[];
  links: Memory['links'];
}

interface ContextItem {
  memoryId: string;
  type: string;
  scope: Memory['scope'];
  provenance: Provenance;
  createdAt: string;
  expiresAt: string | null;
  /** Only FRESH items carry their research (C4, C7). */
  research: Research | null;
}

export interface ContextEntry extends ContextItem {
  status: 'FRESH' | 'STALE' | 'DISABLED';
}

export interface ContextCorrection extends ContextItem {
  status: 'FRESH' | 'STALE' | 'SUPERSEDED';
  correctionTargetIds: string[];
}

export interface TradingContext {
  instrument: string;
  at: string;
  entries: ContextEntry[];
  corrections: ContextCorrection[];
  learnings: Memory[];
}

const PROVENANCE = 'provenance { runId producerName kind schedule evidenceBoundary runStatus }';
const RESEARCH = 'research { content metadata timeframe instruments links { linkType targetMemoryId } }';

/** Everything a Trading run is given (C1–C10), nothing more. */
const CONTEXT_FIELDS = `
  instrument at
  entries { memoryId type scope status createdAt expiresAt ${PROVENANCE} ${RESEARCH} }
  corrections { memoryId type scope status correctionTargetIds createdAt expiresAt ${PROVENANCE} ${RESEARCH} }
  learnings { ${MEMORY_FIELDS} }
`;

export type RecordPageMemory = Memory & { agentId: string; linkedFrom: Backlink[] };

/** B10: a considered record as the decision's instant saw it. */
export interface ConsideredEntry {
  memoryId: string;
  freshnessAtDecision: 'FRESH' | 'STALE' | 'DISABLED' | 'NONE';
  inContextAtDecision: boolean;
  /** Why it was not in the decision instrument's context then (other instrument, superseded, stale, corrected). */
  notInContextReason: string | null;
}

export interface RecordPageResult {
  memory: RecordPageMemory | null;
  /** T3: null unless the record is a trading_decision this token may audit. */
  decisionAudit: { linked: Memory[]; contexts: TradingContext[]; considered: ConsideredEntry[] } | null;
}

/** A record with what links to it and, for a decision, its audit (T3), in one request. */
export const RECORD_PAGE_QUERY = `
  query RecordPage($id: UUID!) {
    memory(id: $id) {
      ${MEMORY_FIELDS} agentId
      linkedFrom { linkType sourceMemoryId sourceType sourceCreatedAt }
    }
    decisionAudit(decisionId: $id) {
      linked { ${MEMORY_FIELDS} } contexts { ${CONTEXT_FIELDS} }
      considered { memoryId freshnessAtDecision inContextAtDecision notInContextReason }
    }
  }
`;

export interface AgentInstrumentsResult {
  agent: { id: string; instruments: string[] } | null;
}

/** The instruments the agent selects now: the Context tab's choice. */
export const AGENT_INSTRUMENTS_QUERY = `
  query AgentInstruments($agentId: UUID!) { agent(id: $agentId) { id instruments } }
`;

export interface ContextResult {
  tradingContext: TradingContext;
}

/** What a Trading run of the agent is given for `instrument` as of `at` (now when null; C9). */
export const CONTEXT_QUERY = `
  query ContextTab($agentId: UUID!, $instrument: String!, $at: DateTime) {
    tradingContext(agentId: $agentId, instrument: $instrument, at: $at) { ${CONTEXT_FIELDS} }
  }
`;

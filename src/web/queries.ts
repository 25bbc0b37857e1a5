// The operations the Memories tab sends, with the shapes they return (names fixed by the API contract).
// Every records operation names its agent: the admin token must (it has none), an operator token may.
import type { RunKind } from '../domain/types.js';

export type RollingWindow = 'LAST_1H' | 'LAST_6H' | 'LAST_24H';

export interface TimeWindowInput {
  rolling?: RollingWindow;
  fromDate?: string;
  toDate?: string;
  timeZone: string;
}

export type { RunKind };
export type Freshness = 'FRESH' | 'STALE';

export interface MemoryFilter {
  types?: string[];
  window?: TimeWindowInput;
  text?: string;
  instruments?: string[];
  producerIds?: string[];
  runKinds?: RunKind[];
  freshness?: Freshness;
}

export interface Provenance {
  runId: string;
  producerName: string;
  kind: RunKind;
  schedule: string | null;
  evidenceBoundary: string | null;
  runStatus: 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED';
}

export interface MemoryLink {
  linkType: string;
  targetMemoryId: string;
}

export interface Memory {
  id: string;
  type: string;
  scope: 'AGENT' | 'INSTRUMENTS';
  instruments: string[];
  content: string;
  metadata: unknown;
  timeframe: string | null;
  createdAt: string;
  expiresAt: string | null;
  expiryPolicy: string | null;
  freshness: 'FRESH' | 'STALE';
  provenance: Provenance | null;
  links: MemoryLink[];
}

export interface MemoryEdge {
  cursor: string;
  node: Memory;
}

export interface ResolvedWindow {
  from: string;
  to: string;
}

export interface MemoryConnection {
  edges: MemoryEdge[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
  window: ResolvedWindow | null;
}

export interface MemoryTypeCount {
  type: string;
  count: number;
}

export const PAGE_SIZE = 50;

export const MEMORY_FIELDS = `
  id type scope instruments content metadata timeframe createdAt expiresAt expiryPolicy freshness
  provenance { runId producerName kind schedule evidenceBoundary runStatus }
  links { linkType targetMemoryId }
`;

const CONNECTION_FIELDS = `
  edges { cursor node { ${MEMORY_FIELDS} } }
  pageInfo { hasNextPage endCursor }
  window { from to }
`;

/**
 * First page and the type list in one round trip (B1: the counts follow every filter but the types, so
 * the selected types' counts add up to the list's total).
 */
export const FIRST_PAGE_QUERY = `
  query MemoriesFirstPage($agentId: UUID, $filter: MemoryFilter, $countFilter: MemoryFilter, $first: Int) {
    memoryTypes(agentId: $agentId, filter: $countFilter) { type count }
    memories(agentId: $agentId, filter: $filter, first: $first) { ${CONNECTION_FIELDS} }
  }
`;

/** B4: the next page continues after the last cursor with the very same filter. */
export const OLDER_PAGE_QUERY = `
  query MemoriesOlderPage($agentId: UUID, $filter: MemoryFilter, $first: Int, $after: String) {
    memories(agentId: $agentId, filter: $filter, first: $first, after: $after) { ${CONNECTION_FIELDS} }
  }
`;

export const TYPE_COUNTS_QUERY = `
  query MemoryTypeCounts($agentId: UUID, $countFilter: MemoryFilter) {
    memoryTypes(agentId: $agentId, filter: $countFilter) { type count }
  }
`;

/** What the filter column offers: the agent's selected instruments and its producers. */
export const FILTER_OPTIONS_QUERY = `
  query FilterOptions($agentId: UUID!) {
    agent(id: $agentId) { instruments producers { id name kind } }
  }
`;

export interface ProducerOption {
  id: string;
  name: string;
  kind: RunKind;
}

export interface FilterOptionsResult {
  agent: { instruments: string[]; producers: ProducerOption[] } | null;
}

/** B5/L2: resumes after the newest record shown, so nothing written meanwhile is missed. */
export const MEMORY_ADDED_SUBSCRIPTION = `
  subscription MemoryAdded($agentId: UUID, $f: MemoryFilter, $after: String) {
    memoryAdded(agentId: $agentId, filter: $f, after: $after) { cursor node { ${MEMORY_FIELDS} } }
  }
`;

/** Who the token is (the header names the agent) and which agents it may browse (admin: all, by name). */
export const VIEWER_QUERY = `
  query Viewer {
    viewer { kind agent { id name } }
    agents { id name }
  }
`;

export interface AgentSummary {
  id: string;
  name: string;
}

export interface ViewerResult {
  viewer: { kind: 'ADMIN' | 'OPERATOR' | 'RUN'; agent: AgentSummary | null };
  agents: AgentSummary[];
}

export interface FirstPageResult {
  memoryTypes: MemoryTypeCount[];
  memories: MemoryConnection;
}

export interface OlderPageResult {
  memories: MemoryConnection;
}

export interface TypeCountsResult {
  memoryTypes: MemoryTypeCount[];
}

export interface MemoryAddedResult {
  memoryAdded: MemoryEdge;
}

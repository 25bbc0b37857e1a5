// The Health tab's operations (B8, B9; names fixed by the API contract's "Operator insight"), with the
// shapes they return: producer health (B8), the freshness board (B9) and one instrument's timeline.
import type { BoardState, ProducerHealthStatus } from './health.js';
import type { RunKind } from './queries.js';

export type RunStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED';

export interface ProducerRef {
  id: string;
  name: string;
  kind: RunKind;
  schedule: string | null;
}

export interface RunSummary {
  id: string;
  status: RunStatus;
  startedAt: string;
  finishedAt: string | null;
  evidenceBoundary: string | null;
  recordCount: number;
  empty: boolean;
}

export interface ProducerHealth {
  producer: ProducerRef;
  status: ProducerHealthStatus;
  lastRun: RunSummary | null;
  lastRecordAt: string | null;
  nextBoundary: string | null;
  cyclesExpected: number;
  cyclesWithRecord: number;
  missedBoundaries: string[];
  latenessP50Seconds: number | null;
  latenessP95Seconds: number | null;
  latenessMaxSeconds: number | null;
  staleOnArrival: number;
  failedRuns: number;
  cancelledRuns: number;
  emptyRuns: number;
}

export interface BoardGroup {
  producer: ProducerRef;
  type: string;
  state: BoardState;
  memoryId: string | null;
  expiresAt: string | null;
}

export interface DecisionRef {
  id: string;
  type: string;
  content: string;
  createdAt: string;
}

export interface BoardInstrument {
  instrument: string;
  groups: BoardGroup[];
  latestDecision: DecisionRef | null;
  decisionFreshEvidence: number | null;
  decisionStaleEvidence: number | null;
}

export interface FreshnessBoard {
  at: string;
  instruments: BoardInstrument[];
}

export interface HealthResult {
  producerHealth: ProducerHealth[];
  freshnessBoard: FreshnessBoard;
}

const PRODUCER = 'producer { id name kind schedule }';
const RUN = 'id status startedAt finishedAt evidenceBoundary recordCount empty';

/** Health over the last 24 h and the board now, in one request: the badge and the tab share it. */
export const HEALTH_QUERY = `
  query Health($agentId: UUID, $window: TimeWindowInput) {
    producerHealth(agentId: $agentId, window: $window) {
      ${PRODUCER} status lastRun { ${RUN} } lastRecordAt nextBoundary cyclesExpected cyclesWithRecord
      missedBoundaries latenessP50Seconds latenessP95Seconds latenessMaxSeconds
      staleOnArrival failedRuns cancelledRuns emptyRuns
    }
    freshnessBoard(agentId: $agentId) {
      at
      instruments {
        instrument
        groups { ${PRODUCER} type state memoryId expiresAt }
        latestDecision { id type content createdAt }
        decisionFreshEvidence decisionStaleEvidence
      }
    }
  }
`;

export interface TimelineLane {
  producer: ProducerRef;
  type: string;
  intervals: { from: string; to: string; memoryId: string; corrected: boolean }[];
}

export interface TimelineResult {
  freshnessTimeline: { instrument: string; lanes: TimelineLane[]; decisions: DecisionRef[] };
}

export const TIMELINE_QUERY = `
  query Timeline($agentId: UUID, $instrument: String!, $from: DateTime!, $to: DateTime!) {
    freshnessTimeline(agentId: $agentId, instrument: $instrument, from: $from, to: $to) {
      instrument
      lanes { ${PRODUCER} type intervals { from to memoryId corrected } }
      decisions { id type content createdAt }
    }
  }
`;

/** What moves the board: a new record, or a run that started, finished or failed (B7). */
export const HEALTH_EVENTS_SUBSCRIPTION = `
  subscription HealthEvents($agentId: UUID) {
    memoryAdded(agentId: $agentId) { cursor }
  }
`;

export const RUN_CHANGED_SUBSCRIPTION = `
  subscription RunChanged($agentId: UUID) {
    runChanged(agentId: $agentId) { id status }
  }
`;

export interface FleetAgent {
  id: string;
  instruments: string[];
  health: {
    producersHealthy: number;
    producersLate: number;
    producersMissing: number;
    lastDecisionAt: string | null;
    recordsLast24h: number;
  };
}

export interface FleetResult {
  agents: FleetAgent[];
}

/** The admin's fleet overview: per agent, what the desk checks first (B8). */
export const FLEET_QUERY = `
  query Fleet {
    agents {
      id instruments
      health { producersHealthy producersLate producersMissing lastDecisionAt recordsLast24h }
    }
  }
`;

// Shared domain vocabulary, kept free of Prisma and I/O so every rule module stays pure.
/** The producer and run kinds (§1), declared once: the page, the filters and the MCP tools use these. */
export const RUN_KINDS = ['ANALYSIS', 'TRADING', 'REVIEW'] as const;
export type RunKind = (typeof RUN_KINDS)[number];
export type RunStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED';
export type MemoryScope = 'AGENT' | 'INSTRUMENTS';
export type JsonObject = { [key: string]: unknown };
/** A validation failure: `field` names the input field (e.g. 'content', 'metadata', 'metadata.stale_after', 'instruments', 'links', 'timeframe', 'type', 'idempotencyKey', 'window.timeZone'). */
export interface FieldError {
  field: string;
  message: string;
}

/** The run a write acts for, as its token resolves (W3: provenance comes from here, never from input). */
export interface RunIdentity {
  id: string;
  agentId: string;
  producerId: string;
  /** Known when resolved from a token; lets a write answer without reading its record back. */
  producerName?: string;
  kind: RunKind;
  schedule: string | null;
  evidenceBoundary: Date | null;
}

/** The run that wrote a record (§1 provenance), as every API shows it. */
export interface Provenance {
  runId: string;
  producerId: string;
  producerName: string;
  kind: RunKind;
  schedule: string | null;
  evidenceBoundary: Date | null;
  runStatus: RunStatus;
}

/** One link of a record, target ids lowercase (W4). */
export interface MemoryLink {
  targetMemoryId: string;
  linkType: string;
}

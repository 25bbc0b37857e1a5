// Shared domain vocabulary, kept free of Prisma and I/O so every rule module stays pure.
export type RunKind = 'ANALYSIS' | 'TRADING' | 'REVIEW';
export type MemoryScope = 'AGENT' | 'INSTRUMENTS';
export type JsonObject = { [key: string]: unknown };
/** A validation failure: `field` names the input field (e.g. 'content', 'metadata', 'metadata.stale_after', 'instruments', 'links', 'timeframe', 'type', 'idempotencyKey', 'window.timeZone'). */
export interface FieldError {
  field: string;
  message: string;
}

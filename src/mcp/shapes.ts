// The MCP tools' structured results (snake_case, like the REST body): one zod definition per shape,
// which is at once the tool's outputSchema, the GraphQL selection the tool asks for, and its type.
import { z } from 'zod';
import type { ArgumentShape } from '../domain/argument-keys.js';

export const Uuid = z.guid();
const Instant = z.string().describe('ISO-8601 instant (UTC)');
const Scope = z.enum(['AGENT', 'INSTRUMENTS']);
/** Any JSON object, passed through untouched (never re-keyed): the caller's own metadata. */
const Metadata = z.record(z.string(), z.unknown());

const Provenance = z.object({
  run_id: Uuid,
  producer_id: Uuid,
  producer_name: z.string(),
  kind: z.enum(['ANALYSIS', 'TRADING', 'REVIEW']),
  schedule: z.string().nullable(),
  evidence_boundary: Instant.nullable(),
  run_status: z.enum(['RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED']),
});

const MemoryLink = z.object({ target_memory_id: Uuid, link_type: z.string() });

/** One record; the same keys as the REST body's `memory`. */
export const Memory = z.object({
  id: Uuid,
  agent_id: Uuid,
  type: z.string(),
  scope: Scope,
  instruments: z.array(z.string()),
  content: z.string(),
  metadata: Metadata,
  timeframe: z.string().nullable(),
  created_at: Instant,
  expires_at: Instant.nullable(),
  expiry_policy: z.string().nullable(),
  freshness: z.enum(['FRESH', 'STALE']),
  provenance: Provenance.nullable(),
  links: z.array(MemoryLink),
});

const Research = z.object({
  content: z.string(),
  metadata: Metadata,
  timeframe: z.string().nullable(),
  instruments: z.array(z.string()),
  links: z.array(MemoryLink),
});

const ContextEntry = z.object({
  memory_id: Uuid,
  type: z.string(),
  scope: Scope,
  status: z.enum(['FRESH', 'STALE', 'DISABLED']),
  provenance: Provenance,
  created_at: Instant,
  expires_at: Instant.nullable(),
  expiry_policy: z.string().nullable(),
  research: Research.nullable().describe('Only for FRESH entries (C4); stale and disabled ones are stubs.'),
});

const ContextCorrection = z.object({
  memory_id: Uuid,
  type: z.string(),
  scope: Scope,
  status: z.enum(['FRESH', 'STALE', 'SUPERSEDED']),
  correction_target_ids: z.array(Uuid),
  provenance: Provenance,
  created_at: Instant,
  expires_at: Instant.nullable(),
  research: Research.nullable().describe('Only while FRESH (C7).'),
});

export const TradingContext = z.object({
  agent_id: Uuid,
  instrument: z.string(),
  selected: z.boolean().describe('false: the agent does not select it now (writes to it fail).'),
  at: Instant,
  entries: z.array(ContextEntry).describe('FRESH first, then stubs; newest first in each part (C4).'),
  corrections: z.array(ContextCorrection),
  learnings: z.array(Memory).describe('The agent_learnings for this instrument, newest first, at most 20.'),
});

export const PageInfo = z.object({ has_next_page: z.boolean(), end_cursor: z.string().nullable() });
export const ResolvedWindow = z.object({ from: Instant, to: Instant });
export const MemoryTypeCount = z.object({ type: z.string(), count: z.number().int() });

export const DecisionAudit = z.object({
  decision: Memory,
  linked: z.array(Memory),
  contexts: z.array(TradingContext).describe('As of the decision’s created_at, one per target (T3).'),
});

/**
 * A failure the agent can act on: for write_memory exactly the REST 400/409/422 body; for reads
 * `not_found` or `validation_error`.
 */
export const ToolFailure = z.object({
  error: z.string(),
  code: z.string(),
  link_index: z.number().int().optional(),
  instrument_index: z.number().int().optional(),
  field: z.string().optional(),
  selected: z.array(z.string()).optional(),
});
export type ToolFailure = z.infer<typeof ToolFailure>;

/** The outputSchema of a tool: its success shape or a ToolFailure (the official client checks both). */
export function outputSchemaOf(success: z.ZodObject): Record<string, unknown> {
  const { $schema: _ignored, ...union } = z.toJSONSchema(z.union([success, ToolFailure]), {
    target: 'draft-7',
    io: 'output',
  });
  // MCP requires an object at the top; the anyOf says which two objects.
  return { type: 'object', ...union };
}

/** The JSON Schema of a tool's arguments. */
export function inputSchemaOf(input: z.ZodObject): Record<string, unknown> {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(input, { target: 'draft-7', io: 'input' });
  return schema;
}

const camel = (key: string) => key.replace(/_([a-z])/g, (_m, letter: string) => letter.toUpperCase());
const snake = (key: string) => key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

function unwrap(schema: z.ZodType): z.ZodType {
  let inner = schema;
  while (inner instanceof z.ZodNullable || inner instanceof z.ZodOptional)
    inner = inner.unwrap() as z.ZodType;
  return inner instanceof z.ZodArray ? unwrap(inner.element as z.ZodType) : inner;
}

/** The GraphQL selection set that yields `shape` (its snake_case keys in camelCase). */
export function selectionOf(shape: z.ZodObject): string {
  const fields = Object.entries(shape.shape).map(([key, value]) => {
    const inner = unwrap(value as z.ZodType);
    return inner instanceof z.ZodObject ? `${camel(key)} { ${selectionOf(inner)} }` : camel(key);
  });
  return fields.join(' ');
}

/** A GraphQL answer in the tools' spelling; `metadata` values are the caller's JSON and stay as written. */
export function snakeKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeKeys);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [snake(key), key === 'metadata' ? inner : snakeKeys(inner)]),
  );
}

/** M10: the keys a tool's arguments may have and must have, nested objects and arrays of them included. */
export function argumentShapeOf(input: z.ZodObject): ArgumentShape {
  const entries = Object.entries(input.shape as Record<string, z.ZodType>);
  const nested: Record<string, ArgumentShape> = {};
  for (const [key, value] of entries) {
    const inner = unwrap(value);
    if (inner instanceof z.ZodObject) nested[key] = argumentShapeOf(inner);
  }
  return {
    keys: entries.map(([key]) => key),
    required: entries.filter(([, value]) => !value.safeParse(undefined).success).map(([key]) => key),
    nested,
  };
}

// The MCP tools' structured results (snake_case, like the REST body): one zod definition per shape,
// which is at once the tool's outputSchema, the GraphQL selection the tool asks for, and its type.
import { z } from 'zod';
import type { ArgumentShape } from '../domain/argument-keys.js';
import { RUN_KINDS } from '../domain/types.js';

export const Uuid = z.guid();
/** An ISO-8601 instant (UTC), as the API answers it. */
const Instant = z.string();
const Scope = z.enum(['AGENT', 'INSTRUMENTS']);
/** Any JSON object, passed through untouched (never re-keyed): the caller's own metadata. */
const Metadata = z.record(z.string(), z.unknown());

const Provenance = z.object({
  run_id: Uuid,
  producer_id: Uuid,
  producer_name: z.string(),
  kind: z.enum(RUN_KINDS),
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

/** A record where another tool's result holds one: its keys are listed once, by get_memory (M9). */
export const MemoryRecord = Memory.describe('Records as get_memory shows them.');

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
  selected: z.boolean().describe('false: writes to it fail'),
  at: Instant,
  entries: z.array(ContextEntry).describe('FRESH first, then stubs (C4).'),
  corrections: z.array(ContextCorrection.describe('Keyed as entries, with correction_target_ids (C6).')),
  learnings: z.array(MemoryRecord).describe('agent_learnings, newest first, ≤ 20.'),
});

export const PageInfo = z.object({ has_next_page: z.boolean(), end_cursor: z.string().nullable() });
export const ResolvedWindow = z.object({ from: Instant, to: Instant });
export const MemoryTypeCount = z.object({ type: z.string(), count: z.number().int() });

export const DecisionAudit = z.object({
  decision: MemoryRecord,
  linked: z.array(MemoryRecord),
  contexts: z
    .array(TradingContext.describe('Contexts as get_trading_context shows them.'))
    .describe('One per target, as of created_at (T3).'),
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

type JsonSchema = Record<string, unknown>;

/** One schema node without repetition (M9): `format: uuid` alone, nullable as a type list, no `$schema`. */
function leanNode(node: JsonSchema): JsonSchema {
  const { $schema: _schema, pattern, anyOf, ...all } = node;
  // An enum says its type itself.
  const { type: _type, ...untyped } = all;
  const rest = all.enum ? untyped : all;
  const options = anyOf as JsonSchema[] | undefined;
  // `X | null` ⇒ X with `null` among its types.
  const nullable = options?.length === 2 && options.some((option) => option.type === 'null');
  if (nullable) {
    const inner = leanNode(options.find((option) => option.type !== 'null')!);
    const type = inner.type as string | undefined;
    return { ...rest, ...inner, ...(type ? { type: [type, 'null'] } : {}) };
  }
  return { ...rest, ...(anyOf ? { anyOf } : {}), ...(pattern && !rest.format ? { pattern } : {}) };
}

const isObjectNode = (node: JsonSchema) =>
  node.type === 'object' || (Array.isArray(node.type) && node.type[0] === 'object');

/**
 * A result's schema for tools/list (M9): the top level typed key by key; a nested object is named by
 * its keys in one line — the result itself shows the rest, and a full nested schema per tool was
 * most of a tool list's size.
 */
function leanOutput(node: JsonSchema, nested: boolean): JsonSchema {
  const lean = leanNode(node);
  if (lean.type === 'array' || (Array.isArray(lean.type) && lean.type[0] === 'array')) {
    const items = leanNode(lean.items as JsonSchema);
    if (!isObjectNode(items)) return { ...lean, items };
    const keys = Object.keys((items.properties as JsonSchema | undefined) ?? {});
    const itemsText = items.description ?? (keys.length ? `Items: {${keys.join(', ')}}.` : '');
    const description = [lean.description, itemsText].filter(Boolean).join(' ');
    return { type: lean.type, ...(description ? { description } : {}) };
  }
  if (!isObjectNode(lean)) return lean;
  const properties = (lean.properties as Record<string, JsonSchema> | undefined) ?? {};
  if (nested) {
    const keys = Object.keys(properties);
    const description = lean.description ?? (keys.length ? `{${keys.join(', ')}}` : '');
    return { type: lean.type, ...(description ? { description } : {}) };
  }
  return {
    type: 'object',
    properties: Object.fromEntries(
      Object.entries(properties).map(([key, value]) => [key, leanOutput(value, true)]),
    ),
  };
}

/**
 * The outputSchema of a tool: a success (its keys, its first key present) or a ToolFailure (`error`
 * and `code` present); the official client checks both outcomes against it.
 */
export function outputSchemaOf(success: z.ZodObject): Record<string, unknown> {
  const lean = leanOutput(z.toJSONSchema(success, { target: 'draft-7', io: 'output' }), false);
  const [first] = Object.keys(success.shape);
  // The success keys constrain the success only: a failure's `selected` is a list (M11), a context's a boolean.
  return {
    type: 'object',
    anyOf: [{ properties: lean.properties, required: [first] }, { required: ['error', 'code'] }],
  };
}

/** M9, M10: an argument schema without repetition, refusing keys it does not list. */
function leanInput(node: JsonSchema): JsonSchema {
  const lean = leanNode(node);
  if (lean.items) return { ...lean, items: leanInput(lean.items as JsonSchema) };
  if (lean.type !== 'object') return lean;
  // A record of free keys (metadata) stays open: any JSON object.
  if (lean.propertyNames)
    return { type: 'object', ...(lean.description ? { description: lean.description } : {}) };
  const properties = (lean.properties as Record<string, JsonSchema> | undefined) ?? {};
  return {
    ...lean,
    properties: Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, leanInput(value)])),
    additionalProperties: false,
  };
}

/** The JSON Schema of a tool's arguments. */
export function inputSchemaOf(input: z.ZodObject): Record<string, unknown> {
  return leanInput(z.toJSONSchema(input, { target: 'draft-7', io: 'input' }));
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

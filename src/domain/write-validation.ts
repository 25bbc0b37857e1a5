// Shape-only checks of a memory write or import (W1, W6, W7, W8, W10, I2); database checks (W2, W4) live in the store.
import { MemoryValidationError, ReservedMemoryTypeError } from './errors.js';
import { findUnstorableText, quoteInput } from './text-hygiene.js';
import type { FieldError, JsonObject, MemoryLink, MemoryScope, RunKind } from './types.js';

export const TRADING_DECISION = 'trading_decision';
export const AGENT_LEARNINGS = 'agent_learnings';

export const RESERVED_TYPES: Record<string, RunKind> = {
  [TRADING_DECISION]: 'TRADING',
  review: 'REVIEW',
  [AGENT_LEARNINGS]: 'REVIEW',
};

export const LIMITS = {
  contentMaxChars: 65_536,
  metadataMaxBytes: 256 * 1024,
  metadataMaxDepth: 32,
  maxLinks: 64,
  maxTargets: 32,
  idempotencyKeyMaxChars: 128,
  linkTypeMaxChars: 64,
};

/** The link type that makes a record a correction of its target (C6). */
export const CORRECTS = 'corrects';
/** T1: the link type of a decision's evidence. */
export const CONSIDERED = 'considered';

export function isCorrection(links: readonly MemoryLink[]): boolean {
  return links.some((link) => link.linkType === CORRECTS);
}

export const TYPE_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;
export const LINK_TYPE_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;
export const TIMEFRAME_PATTERN = /^[0-9]{1,3}[mhdwM]$/;

export interface WriteShapeInput {
  type: string;
  scope: MemoryScope;
  instruments?: string[] | null;
  content: string;
  metadata?: unknown;
  timeframe?: string | null;
  links?: MemoryLink[] | null;
  idempotencyKey?: string | null;
}

export type ShapeCheck =
  | { ok: true; instruments: string[]; links: MemoryLink[]; metadata: JsonObject }
  | { ok: false; kind: 'validation'; error: FieldError }
  | { ok: false; kind: 'reserved'; message: string };

function invalid(field: string, message: string): ShapeCheck {
  return { ok: false, kind: 'validation', error: { field, message } };
}

/** Reserved type lookup by own property only, so names like 'constructor' are never mistaken for reserved. */
export function reservedKindOf(type: string): RunKind | null {
  return Object.prototype.hasOwnProperty.call(RESERVED_TYPES, type) ? (RESERVED_TYPES[type] ?? null) : null;
}

/** Counts code points up to `max + 1` so an oversized string is rejected without scanning all of it (W7). */
export function codePointLengthExceeds(text: string, max: number): boolean {
  if (text.length <= max) return false;
  if (text.length > 2 * max) return true;
  let count = 0;
  for (const _ of text) {
    count += 1;
    if (count > max) return true;
  }
  return false;
}

function isPlainObject(value: unknown): value is JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** W7: iterative depth walk with early exit, so deep or cyclic input can never overflow the stack. */
export function exceedsDepth(root: unknown, maxDepth: number): boolean {
  const stack: { value: unknown; depth: number }[] = [{ value: root, depth: 1 }];
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    if (depth > maxDepth) return true;
    const children = Array.isArray(value) ? value : Object.values(value);
    for (const child of children) {
      if (typeof child === 'object' && child !== null) stack.push({ value: child, depth: depth + 1 });
    }
  }
  return false;
}

function checkInstruments(scope: MemoryScope, instruments: string[]): ShapeCheck | null {
  if (scope === 'AGENT') {
    if (instruments.length > 0) {
      return invalid('instruments', 'An AGENT-scoped memory must not target any instruments.');
    }
    return null;
  }
  if (instruments.length === 0) {
    return invalid('instruments', 'An INSTRUMENTS-scoped memory must target at least one instrument.');
  }
  if (instruments.length > LIMITS.maxTargets) {
    return invalid(
      'instruments',
      `A memory may target at most ${LIMITS.maxTargets} instruments; ${instruments.length} were given.`,
    );
  }
  const seen = new Map<string, number>();
  for (const [i, name] of instruments.entries()) {
    const first = seen.get(name);
    if (first !== undefined) {
      return invalid(
        'instruments',
        `instruments[${i}] duplicates instruments[${first}] (${quoteInput(name)}).`,
      );
    }
    seen.set(name, i);
  }
  return null;
}

function checkMetadata(
  metadata: unknown,
): { ok: true; metadata: JsonObject } | { ok: false; check: ShapeCheck } {
  const value = metadata ?? {};
  if (!isPlainObject(value)) {
    return {
      ok: false,
      check: invalid('metadata', 'metadata must be a JSON object (not an array or a scalar).'),
    };
  }
  // Depth first: JSON.stringify itself would overflow the stack on very deep input.
  if (exceedsDepth(value, LIMITS.metadataMaxDepth)) {
    return {
      ok: false,
      check: invalid(
        'metadata',
        `metadata must not be nested more than ${LIMITS.metadataMaxDepth} levels deep.`,
      ),
    };
  }
  let serialised: string;
  try {
    serialised = JSON.stringify(value);
  } catch {
    return { ok: false, check: invalid('metadata', 'metadata must be serialisable as JSON.') };
  }
  const bytes = Buffer.byteLength(serialised, 'utf8');
  if (bytes > LIMITS.metadataMaxBytes) {
    return {
      ok: false,
      check: invalid(
        'metadata',
        `metadata must be at most ${LIMITS.metadataMaxBytes} bytes (256 KiB) when serialised; it is ${bytes} bytes.`,
      ),
    };
  }
  return { ok: true, metadata: value };
}

function checkLinks(links: MemoryLink[]): ShapeCheck | null {
  if (links.length > LIMITS.maxLinks) {
    return invalid(
      'links',
      `A memory may have at most ${LIMITS.maxLinks} links; ${links.length} were given.`,
    );
  }
  const seen = new Map<string, number>();
  for (const [i, link] of links.entries()) {
    if (!LINK_TYPE_PATTERN.test(link.linkType)) {
      return invalid(
        `links[${i}].linkType`,
        `links[${i}].linkType must match ^[a-z][a-z0-9_]{0,63}$ (lowercase, at most ${LIMITS.linkTypeMaxChars} characters).`,
      );
    }
    const key = `${link.targetMemoryId.toLowerCase()}|${link.linkType}`;
    const first = seen.get(key);
    if (first !== undefined) {
      return invalid(`links[${i}]`, `links[${i}] duplicates links[${first}] (same target and link type).`);
    }
    seen.set(key, i);
  }
  return null;
}

/** mode 'write' enforces reserved types for `writerKind`; mode 'import' allows reserved types (I2). */
export function checkWriteShape(
  input: WriteShapeInput,
  mode: 'write' | 'import',
  writerKind: RunKind | null,
): ShapeCheck {
  // W10: text PostgreSQL cannot store is refused before any other check or database access.
  const unstorable = findUnstorableText([
    ['type', input.type],
    ['instruments', input.instruments],
    ['content', input.content],
    ['timeframe', input.timeframe],
    ...(input.links ?? []).map((link, i) => [`links[${i}].linkType`, link.linkType] as const),
    ['idempotencyKey', input.idempotencyKey],
  ]);
  if (unstorable) return invalid(unstorable.field, unstorable.message);
  // W6: type pattern.
  if (!TYPE_PATTERN.test(input.type)) {
    return invalid('type', 'type must match ^[a-z][a-z0-9_]{0,63}$ (lowercase, at most 64 characters).');
  }
  // W6: reserved types only from their writer kind; imports carry history, so they are exempt (I2).
  const reservedFor = reservedKindOf(input.type);
  if (mode === 'write' && reservedFor !== null && writerKind !== reservedFor) {
    return { ok: false, kind: 'reserved', message: `${input.type} is reserved for ${reservedFor} runs` };
  }
  // W1: scope and targets agree.
  const instruments = input.instruments ?? [];
  const instrumentError = checkInstruments(input.scope, instruments);
  if (instrumentError) return instrumentError;
  // W7: content 1..65,536 characters (code points).
  if (input.content.length === 0) return invalid('content', 'content must not be empty.');
  if (codePointLengthExceeds(input.content, LIMITS.contentMaxChars)) {
    return invalid('content', `content must be at most ${LIMITS.contentMaxChars} characters.`);
  }
  // W7: metadata is a bounded JSON object.
  const metadata = checkMetadata(input.metadata);
  if (!metadata.ok) return metadata.check;
  // W7: timeframe is optional but well-formed.
  if (input.timeframe !== null && input.timeframe !== undefined && !TIMEFRAME_PATTERN.test(input.timeframe)) {
    return invalid(
      'timeframe',
      'timeframe must match ^[0-9]{1,3}[mhdwM]$, for example 5m, 1h, 1d, 1w or 1M.',
    );
  }
  // W7: at most 64 well-formed, distinct links.
  const links = input.links ?? [];
  const linkError = checkLinks(links);
  if (linkError) return linkError;
  // W8: idempotency key length.
  const key = input.idempotencyKey;
  if (key !== null && key !== undefined) {
    if (key.length === 0 || codePointLengthExceeds(key, LIMITS.idempotencyKeyMaxChars)) {
      return invalid(
        'idempotencyKey',
        `idempotencyKey must be 1 to ${LIMITS.idempotencyKeyMaxChars} characters long.`,
      );
    }
  }
  return { ok: true, instruments: [...instruments], links: [...links], metadata: metadata.metadata };
}

/** checkWriteShape, or the typed error of its first failure; link target ids come back lowercase (W4). */
export function requireWriteShape(
  input: WriteShapeInput,
  mode: 'write' | 'import',
  writerKind: RunKind | null,
): Extract<ShapeCheck, { ok: true }> {
  const check = checkWriteShape(input, mode, writerKind);
  if (check.ok) {
    const links = check.links.map((link) => ({ ...link, targetMemoryId: link.targetMemoryId.toLowerCase() }));
    return { ...check, links };
  }
  if (check.kind === 'reserved') throw new ReservedMemoryTypeError(check.message);
  throw new MemoryValidationError(check.error.field, check.error.message);
}

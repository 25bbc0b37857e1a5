// W8: what makes two writes "the same request" — a hash of the write input with object keys sorted,
// so a retry is recognised whatever its key order, and a reused key with other content is not.
import { createHash } from 'node:crypto';
import type { JsonObject, MemoryLink, MemoryScope } from './types.js';

/** The fields of a write that a retry must repeat exactly. */
export interface RequestFields {
  type: string;
  scope: MemoryScope;
  instruments?: readonly string[] | null;
  content: string;
  metadata?: unknown;
  timeframe?: string | null;
  links?: readonly MemoryLink[] | null;
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical((value as JsonObject)[key])]),
    );
  }
  return value;
}

export function requestHash(input: RequestFields): string {
  const normalized = {
    type: input.type,
    scope: input.scope,
    instruments: input.instruments ?? [],
    content: input.content,
    metadata: input.metadata ?? {},
    timeframe: input.timeframe ?? null,
    links: (input.links ?? []).map((l) => ({
      targetMemoryId: l.targetMemoryId.toLowerCase(),
      linkType: l.linkType,
    })),
  };
  return createHash('sha256')
    .update(JSON.stringify(canonical(normalized)))
    .digest('hex');
}

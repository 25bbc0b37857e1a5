// Opaque keyset cursors (createdAt, id) shared by "load older" pages (B4) and subscription resumes (L2).
import { isStorableInstant } from './instant-range.js';
import { isUuid } from './uuid.js';

export interface CursorPosition {
  createdAt: Date;
  id: string;
}

const BASE64URL_PATTERN = /^[A-Za-z0-9_-]+$/;
const ISO_INSTANT_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Opaque base64url of `${createdAt.toISOString()}|${id}`. */
export function encodeCursor(p: CursorPosition): string {
  return Buffer.from(`${p.createdAt.toISOString()}|${p.id}`, 'utf8').toString('base64url');
}

/** Null on anything malformed (bad base64, bad date, id not a UUID); a cursor is never partially trusted. */
export function decodeCursor(cursor: string): CursorPosition | null {
  if (typeof cursor !== 'string' || !BASE64URL_PATTERN.test(cursor)) return null;
  const bytes = Buffer.from(cursor, 'base64url');
  // Node's decoder is lenient; re-encoding must reproduce the input exactly.
  if (bytes.toString('base64url') !== cursor) return null;
  const text = bytes.toString('utf8');
  const parts = text.split('|');
  if (parts.length !== 2) return null;
  const [iso, id] = parts as [string, string];
  if (!ISO_INSTANT_PATTERN.test(iso) || !isUuid(id)) return null;
  const createdAt = new Date(iso);
  // Round trip rejects impossible dates that Date would otherwise roll over (e.g. Feb 30).
  if (Number.isNaN(createdAt.getTime()) || createdAt.toISOString() !== iso) return null;
  // W10: year 0000 is well-formed but no timestamp PostgreSQL can compare with.
  if (!isStorableInstant(createdAt)) return null;
  return { createdAt, id: id.toLowerCase() };
}

// Opaque cursors shared by "load older" pages (B4, keyset on (createdAt, id)) and subscription
// resumes (L2, after the record's seq: its place in its agent's commit order).
import { isStorableInstant } from './instant-range.js';
import { isUuid } from './uuid.js';

export interface CursorPosition {
  createdAt: Date;
  id: string;
  /** The record's seq (L2); absent from a cursor issued before seqs existed (the resume looks it up by id). */
  seq?: number;
}

const BASE64URL_PATTERN = /^[A-Za-z0-9_-]+$/;
const ISO_INSTANT_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SEQ_PATTERN = /^[1-9]\d{0,15}$/;

/** Opaque base64url of `${createdAt.toISOString()}|${id}|${seq}` (`|${seq}` absent when unknown). */
export function encodeCursor(p: CursorPosition): string {
  const text = `${p.createdAt.toISOString()}|${p.id}${p.seq === undefined ? '' : `|${p.seq}`}`;
  return Buffer.from(text, 'utf8').toString('base64url');
}

/** Null on anything malformed (bad base64, bad date, id not a UUID); a cursor is never partially trusted. */
export function decodeCursor(cursor: string): CursorPosition | null {
  if (typeof cursor !== 'string' || !BASE64URL_PATTERN.test(cursor)) return null;
  const bytes = Buffer.from(cursor, 'base64url');
  // Node's decoder is lenient; re-encoding must reproduce the input exactly.
  if (bytes.toString('base64url') !== cursor) return null;
  const text = bytes.toString('utf8');
  const parts = text.split('|');
  // Two parts: a cursor from before seqs existed, still accepted (L2 resolves its seq by id).
  if (parts.length !== 2 && parts.length !== 3) return null;
  const [iso, id, seqText] = parts as [string, string, string | undefined];
  if (!ISO_INSTANT_PATTERN.test(iso) || !isUuid(id)) return null;
  if (seqText !== undefined && !SEQ_PATTERN.test(seqText)) return null;
  const seq = seqText === undefined ? undefined : Number(seqText);
  if (seq !== undefined && !Number.isSafeInteger(seq)) return null;
  const createdAt = new Date(iso);
  // Round trip rejects impossible dates that Date would otherwise roll over (e.g. Feb 30).
  if (Number.isNaN(createdAt.getTime()) || createdAt.toISOString() !== iso) return null;
  // W10: year 0000 is well-formed but no timestamp PostgreSQL can compare with.
  if (!isStorableInstant(createdAt)) return null;
  return seq === undefined ? { createdAt, id: id.toLowerCase() } : { createdAt, id: id.toLowerCase(), seq };
}

// Bearer tokens: generated once, stored only as their SHA-256, compared in constant time (S6).
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export type TokenKind = 'run' | 'op';

/** A new bearer token; only its hash is stored. The prefix tells which table to look in. */
export function generateToken(kind: TokenKind): string {
  return `${kind}_${randomBytes(32).toString('base64url')}`;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Constant-time comparison of two tokens (hashed first, so lengths never leak). */
export function tokensEqual(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

// Bearer tokens: generated once, stored only as their SHA-256, compared in constant time (S6).
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export type TokenKind = 'run' | 'op';

/**
 * A new bearer token; only its hash is stored. The prefix tells which table to look in, and (D2)
 * the agent id after it which agent's rows: `run_<agent id, 32 hex>.<secret>`, so the lookup names
 * its agent (one shard on Citus). The hash covers the whole token: naming another agent finds nothing.
 */
export function generateToken(kind: TokenKind, agentId: string): string {
  return `${kind}_${agentId.replace(/-/g, '')}.${randomBytes(32).toString('base64url')}`;
}

const AGENT_IN_TOKEN = /^(?:run|op)_([0-9a-f]{8})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{12})\./;

/** The agent a token names (null: a token issued before tokens named their agent, or not a token). */
export function tokenAgentId(token: string): string | null {
  const parts = AGENT_IN_TOKEN.exec(token);
  return parts ? parts.slice(1).join('-') : null;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Constant-time comparison of two tokens (hashed first, so lengths never leak). */
export function tokensEqual(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

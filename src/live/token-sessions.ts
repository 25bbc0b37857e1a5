// Open sessions per token (WebSockets, SSE and WebSocket subscriptions), so that a revoked operator
// token or a finished run loses every open connection within a second (S6, L4): at once on the
// instance that revoked it, and through a periodic check of the tokens in use on every other one.
import type { Logger } from '../logger.js';
import type { Sql } from '../store/db.js';
import { liveTokenHashes } from '../store/tokens.js';

/** How often the tokens of open sessions are re-checked against the database (L4: ≤ 1 s). */
export const SESSION_CHECK_MS = 500;

export class TokenSessions {
  private readonly sessions = new Map<string, Set<() => void>>();
  private timer: NodeJS.Timeout | null = null;
  private checking = false;

  constructor(
    private readonly sql: Sql,
    private readonly logger: Logger,
    private readonly checkEveryMs = SESSION_CHECK_MS,
  ) {}

  /** `onRevoked` runs once when the token stops authenticating; call the result when the session ends. */
  register(tokenKey: string, onRevoked: () => void): () => void {
    let callbacks = this.sessions.get(tokenKey);
    if (!callbacks) {
      callbacks = new Set();
      this.sessions.set(tokenKey, callbacks);
    }
    callbacks.add(onRevoked);
    this.timer ??= setInterval(() => void this.check(), this.checkEveryMs).unref();
    return () => {
      const current = this.sessions.get(tokenKey);
      if (!current) return;
      current.delete(onRevoked);
      if (current.size === 0) this.sessions.delete(tokenKey);
      this.stopWhenIdle();
    };
  }

  /** The token stopped authenticating (revoked here, or its run finished here): end its sessions now. */
  revoke(tokenKey: string): void {
    const callbacks = this.sessions.get(tokenKey);
    if (!callbacks) return;
    this.sessions.delete(tokenKey);
    for (const onRevoked of callbacks) {
      try {
        onRevoked();
      } catch (error) {
        this.logger.warn({ err: error }, 'closing a revoked session failed');
      }
    }
    this.stopWhenIdle();
  }

  get size(): number {
    return this.sessions.size;
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.sessions.clear();
  }

  /** Revocations made by another instance arrive here: one indexed query for all tokens in use. */
  private async check(): Promise<void> {
    if (this.checking || this.sessions.size === 0) return;
    this.checking = true;
    try {
      const tokens = [...this.sessions.keys()];
      const live = await liveTokenHashes(this.sql, tokens);
      for (const token of tokens) if (!live.has(token)) this.revoke(token);
    } catch (error) {
      // A database outage is not a revocation: sessions stay until the check succeeds again.
      this.logger.warn({ err: error }, 'checking open sessions failed');
    } finally {
      this.checking = false;
    }
  }

  private stopWhenIdle(): void {
    if (this.sessions.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }
}

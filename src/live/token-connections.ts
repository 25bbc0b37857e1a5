// The connections a token holds open on this instance — its WebSockets and its SSE streams, counted
// together against one bound (S11, L4) — and how many of each kind are open (the /metrics gauge).

export type ConnectionTransport = 'ws' | 'sse';

export class TokenConnections {
  private readonly perToken = new Map<string, number>();
  private readonly perTransport: Record<ConnectionTransport, number> = { ws: 0, sse: 0 };

  constructor(readonly maxPerToken: number) {}

  /** Takes one of the token's places; null when it holds `maxPerToken` already. The result gives it back (once). */
  take(tokenKey: string, transport: ConnectionTransport): (() => void) | null {
    const open = this.perToken.get(tokenKey) ?? 0;
    if (open >= this.maxPerToken) return null;
    this.perToken.set(tokenKey, open + 1);
    this.perTransport[transport]++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.perTransport[transport]--;
      const left = (this.perToken.get(tokenKey) ?? 1) - 1;
      if (left > 0) this.perToken.set(tokenKey, left);
      else this.perToken.delete(tokenKey);
    };
  }

  /** Open connections of each transport on this instance. */
  open(): Record<ConnectionTransport, number> {
    return { ...this.perTransport };
  }
}

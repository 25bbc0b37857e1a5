// The bearer token of an Authorization header (HTTP requests and WebSocket connectionParams alike).
export function bearerToken(header: string | null | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

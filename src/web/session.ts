// The operator token lives in sessionStorage (this tab only). A `#token=…` link signs in once and is
// then removed from the address bar and history so the token is not left on screen or in bookmarks.
import { isRouteHash } from './route.js';

const STORAGE_KEY = 'memory-service.operator-token';

export function readStoredToken(): string | null {
  try {
    return sessionStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

export function storeToken(token: string): void {
  try {
    sessionStorage.setItem(STORAGE_KEY, token);
  } catch {
    // Storage disabled: the session lasts until the page is reloaded.
  }
}

export function clearStoredToken(): void {
  try {
    sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    // Nothing stored.
  }
}

/** Takes `#token=…` from the URL (storing it) and strips it; returns the token or null. */
export function takeTokenFromLocation(): string | null {
  // A page's route (`#/memory/…`, `#/context?…`) is never a sign-in link.
  if (isRouteHash(window.location.hash)) return null;
  const hash = window.location.hash.replace(/^#/, '');
  if (!hash) return null;
  const token = new URLSearchParams(hash).get('token')?.trim();
  if (!token) return null;
  storeToken(token);
  window.history.replaceState(window.history.state, '', window.location.pathname + window.location.search);
  return token;
}

// A rejected token ends the session with a reason; every request and the subscription report through it.
import { useCallback } from 'preact/hooks';
import { AuthError } from '../graphql.js';

/** What the sign-in form says after a session ended on its own. */
export function authFailureMessage(error: AuthError): string {
  switch (error.code) {
    case 'FORBIDDEN':
      return 'This token may not browse memories. Use an operator token or the admin token.';
    case 'ENDED':
      return 'Your session ended: this token was revoked or is no longer valid. Sign in with a new link or token.';
    case 'UNAUTHENTICATED':
      return 'The token was not accepted: this service does not know it. Check it and sign in again.';
  }
}

/** Returns `failed(error)`: true when the error was an auth failure (already handled: signed out). */
export function useAuthFailure(onAuthFailure: (message: string) => void): (error: unknown) => boolean {
  return useCallback(
    (error: unknown): boolean => {
      if (!(error instanceof AuthError)) return false;
      onAuthFailure(authFailureMessage(error));
      return true;
    },
    [onAuthFailure],
  );
}

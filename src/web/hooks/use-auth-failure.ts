// A rejected token ends the session with a reason; every request and the subscription report through it.
import { useCallback } from 'preact/hooks';
import { AuthError } from '../graphql.js';

/** Returns `failed(error)`: true when the error was an auth failure (already handled: signed out). */
export function useAuthFailure(onAuthFailure: (message: string) => void): (error: unknown) => boolean {
  return useCallback(
    (error: unknown): boolean => {
      if (error instanceof AuthError) {
        onAuthFailure(
          error.code === 'FORBIDDEN'
            ? 'This token may not browse memories. Use an operator token.'
            : 'The token was not accepted (unknown or revoked). Sign in again.',
        );
        return true;
      }
      return false;
    },
    [onAuthFailure],
  );
}

// Signed out ⇒ the sign-in form; signed in ⇒ the Memories page. A rejected token signs out with a reason.
import { h } from 'preact';
import { useCallback, useState } from 'preact/hooks';
import { clearStoredToken, readStoredToken, storeToken, takeTokenFromLocation } from '../session.js';
import { MemoriesPage } from './memories-page.js';
import { SignIn } from './sign-in.js';

export function App() {
  const [token, setToken] = useState<string | null>(() => takeTokenFromLocation() ?? readStoredToken());
  const [message, setMessage] = useState<string | null>(null);

  const signIn = useCallback((next: string) => {
    storeToken(next);
    setMessage(null);
    setToken(next);
  }, []);
  const signOut = useCallback((reason: string | null) => {
    clearStoredToken();
    setMessage(reason);
    setToken(null);
  }, []);
  const onSignOut = useCallback(() => signOut('Signed out.'), [signOut]);

  if (!token) return h(SignIn, { message, onSubmit: signIn });
  // Keyed by token: signing in again starts from a clean page.
  return h(MemoriesPage, { key: token, token, onSignOut, onAuthFailure: signOut });
}

// Signed out ⇒ the sign-in form; signed in ⇒ the Memories page. A rejected token signs out with a reason.
import { useCallback, useState } from 'preact/hooks';
import { clearStoredToken, readStoredToken, storeToken, takeTokenFromLocation } from '../session.js';
import { MemoriesPage } from './memories-page.js';
import { SignIn, type Notice } from './sign-in.js';

export function App() {
  const [token, setToken] = useState<string | null>(() => takeTokenFromLocation() ?? readStoredToken());
  const [notice, setNotice] = useState<Notice | null>(null);

  const signIn = useCallback((next: string) => {
    storeToken(next);
    setNotice(null);
    setToken(next);
  }, []);
  const signOut = useCallback((next: Notice) => {
    clearStoredToken();
    setNotice(next);
    setToken(null);
  }, []);
  const onSignOut = useCallback(() => signOut({ text: 'Signed out.', tone: 'info' }), [signOut]);
  const onAuthFailure = useCallback((text: string) => signOut({ text, tone: 'error' }), [signOut]);

  if (!token) return <SignIn notice={notice} onSubmit={signIn} />;
  // Keyed by token: signing in again starts from a clean page.
  return <MemoriesPage key={token} token={token} onSignOut={onSignOut} onAuthFailure={onAuthFailure} />;
}

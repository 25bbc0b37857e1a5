// Signed out ⇒ the sign-in form; signed in ⇒ the session of that token. A rejected token signs out with a
// reason. A new `#token=…` link opened in this tab replaces the session without a reload.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { clearStoredToken, readStoredToken, storeToken, takeTokenFromLocation } from '../session.js';
import { Session } from './session.js';
import { SignIn, type Notice } from './sign-in.js';

export function App() {
  const [token, setToken] = useState<string | null>(() => takeTokenFromLocation() ?? readStoredToken());
  const [notice, setNotice] = useState<Notice | null>(null);
  // The token of the session in charge: a late failure of a session already replaced changes nothing.
  const current = useRef(token);

  const signIn = useCallback((next: string) => {
    storeToken(next);
    current.current = next;
    setNotice(null);
    setToken(next);
  }, []);
  const signOut = useCallback((next: Notice) => {
    clearStoredToken();
    current.current = null;
    setNotice(next);
    setToken(null);
  }, []);
  const onSignOut = useCallback(() => signOut({ text: 'Signed out.', tone: 'info' }), [signOut]);
  const failedFor = useCallback(
    (failedToken: string, text: string) => {
      if (current.current === failedToken) signOut({ text, tone: 'error' });
    },
    [signOut],
  );

  // Only the fragment changes when a sign-in link is opened in a tab already at this page: no reload.
  useEffect(() => {
    const follow = () => {
      const next = takeTokenFromLocation();
      if (next) signIn(next);
    };
    window.addEventListener('hashchange', follow);
    return () => window.removeEventListener('hashchange', follow);
  }, [signIn]);

  if (!token) return <SignIn notice={notice} onSubmit={signIn} />;
  // Keyed by token: signing in again starts from a clean page.
  return <Session key={token} token={token} onSignOut={onSignOut} onAuthFailure={failedFor} />;
}

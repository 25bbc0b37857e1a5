// Sign-in with an operator token (or the admin token); also where a rejected or ended session lands, with
// the reason.
import { useEffect, useRef, useState } from 'preact/hooks';

export interface Notice {
  text: string;
  tone: 'info' | 'error';
}

function NoticeText({ notice }: { notice: Notice }) {
  return notice.tone === 'error' ? (
    <p class="alert" role="alert">
      {notice.text}
    </p>
  ) : (
    <p class="notice" role="status">
      {notice.text}
    </p>
  );
}

export function SignIn({ notice, onSubmit }: { notice: Notice | null; onSubmit: (token: string) => void }) {
  const [token, setToken] = useState('');
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);

  const submit = (event: Event) => {
    event.preventDefault();
    const trimmed = token.trim();
    if (trimmed) onSubmit(trimmed);
  };

  return (
    <main class="signin">
      <form class="signin-card" onSubmit={submit} aria-labelledby="signin-title">
        <div class="brand">
          <span class="brand-mark" aria-hidden="true" />
          <h1 id="signin-title">Memories</h1>
        </div>
        <p class="muted">Browse an agent's memory records as they are written.</p>
        {notice ? <NoticeText notice={notice} /> : null}
        <label for="operator-token">Operator token</label>
        <input
          id="operator-token"
          ref={input}
          type="password"
          name="token"
          autoComplete="off"
          spellcheck={false}
          required
          value={token}
          onInput={(event) => setToken(event.currentTarget.value)}
        />
        <button type="submit" class="btn btn-primary">
          Sign in
        </button>
        <p class="hint">
          The token is kept in this browser tab only. The service prints an operator link when it starts; the
          admin token works too and lets you choose the agent.
        </p>
      </form>
    </main>
  );
}

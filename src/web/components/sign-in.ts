// Sign-in with an operator token; also where a rejected token lands, with the reason.
import { h } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

export interface Notice {
  text: string;
  tone: 'info' | 'error';
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

  return h(
    'main',
    { class: 'signin' },
    h(
      'form',
      { class: 'signin-card', onSubmit: submit, 'aria-labelledby': 'signin-title' },
      h(
        'div',
        { class: 'brand' },
        h('span', { class: 'brand-mark', 'aria-hidden': 'true' }),
        h('h1', { id: 'signin-title' }, 'Memories'),
      ),
      h('p', { class: 'muted' }, "Browse an agent's memory records as they are written."),
      notice
        ? notice.tone === 'error'
          ? h('p', { class: 'alert', role: 'alert' }, notice.text)
          : h('p', { class: 'notice', role: 'status' }, notice.text)
        : null,
      h('label', { for: 'operator-token' }, 'Operator token'),
      h('input', {
        id: 'operator-token',
        ref: input,
        type: 'password',
        name: 'token',
        autoComplete: 'off',
        spellcheck: false,
        required: true,
        value: token,
        onInput: (event: Event) => setToken((event.currentTarget as HTMLInputElement).value),
      }),
      h('button', { type: 'submit', class: 'btn btn-primary' }, 'Sign in'),
      h(
        'p',
        { class: 'hint' },
        'The token is kept in this browser tab only. The service prints an operator link when it starts.',
      ),
    ),
  );
}

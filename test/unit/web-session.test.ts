// The operator page's session pieces without a browser: the agent in the address, and how auth failures
// read on the sign-in form (S6).
import { describe, expect, it } from 'vitest';
import { addressWithAgent, agentFromSearch } from '../../src/web/agent-url.js';
import { AuthError, RequestError, errorFromGraphQL } from '../../src/web/graphql.js';
import { authFailureMessage } from '../../src/web/hooks/use-auth-failure.js';

const ID = '7c0c8a3e-2f4b-4d35-9b8e-0d3f5a1c2b4d';

describe('the agent in the address', () => {
  it('reads ?agent=<id>, ignoring an empty value', () => {
    expect(agentFromSearch(`?agent=${ID}`)).toBe(ID);
    expect(agentFromSearch(`?x=1&agent=${ID}`)).toBe(ID);
    expect(agentFromSearch('?agent=')).toBeNull();
    expect(agentFromSearch('')).toBeNull();
  });

  it('sets or removes the agent and keeps other parameters', () => {
    expect(addressWithAgent('/', '', ID)).toBe(`/?agent=${ID}`);
    expect(addressWithAgent('/', '?agent=old', ID)).toBe(`/?agent=${ID}`);
    expect(addressWithAgent('/', `?x=1&agent=${ID}`, null)).toBe('/?x=1');
    expect(addressWithAgent('/', `?agent=${ID}`, null)).toBe('/');
  });
});

describe('auth failures (S6)', () => {
  it('S6: a revoked token or a finished run is an ended session; an unknown token and a forbidden one are not', () => {
    const coded = (message: string, code: string, reason?: string) =>
      errorFromGraphQL([{ message, extensions: { code, ...(reason ? { reason } : {}) } }]);
    expect(
      coded('Not authenticated: operator token revoked', 'UNAUTHENTICATED', 'TOKEN_ENDED'),
    ).toMatchObject({
      code: 'ENDED',
    });
    expect(coded('Not authenticated: run 1 is SUCCEEDED', 'UNAUTHENTICATED', 'TOKEN_ENDED')).toMatchObject({
      code: 'ENDED',
    });
    expect(coded('Not authenticated: unknown token', 'UNAUTHENTICATED')).toMatchObject({
      code: 'UNAUTHENTICATED',
    });
    // The code decides, never the words: a message that reads like an ended session is not one.
    expect(coded('Not authenticated: operator token revoked', 'UNAUTHENTICATED')).toMatchObject({
      code: 'UNAUTHENTICATED',
    });
    expect(coded('This token belongs to another agent', 'FORBIDDEN')).toMatchObject({ code: 'FORBIDDEN' });
    expect(coded('agentId is required with the admin token', 'BAD_USER_INPUT')).toBeInstanceOf(RequestError);
  });

  it('S6: each failure reads as a sentence that says what to do', () => {
    expect(authFailureMessage(new AuthError('x', 'ENDED'))).toBe(
      'Your session ended: this token was revoked or is no longer valid. Sign in with a new link or token.',
    );
    expect(authFailureMessage(new AuthError('x', 'UNAUTHENTICATED'))).toBe(
      'The token was not accepted: this service does not know it. Check it and sign in again.',
    );
    expect(authFailureMessage(new AuthError('x', 'FORBIDDEN'))).toBe(
      'This token may not browse memories. Use an operator token or the admin token.',
    );
  });
});

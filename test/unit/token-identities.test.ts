// S14: the token identities a process remembers are bounded (oldest out first)
// and never carry whether the token still authenticates (a run's status, an operator's revocation).
import { describe, expect, it } from 'vitest';
import { TokenIdentities } from '../../src/auth/caller.js';

const runCaller = (n: number) =>
  ({
    kind: 'run',
    agentId: 'a',
    tokenKey: `k${n}`,
    run: {
      id: `r${n}`,
      agentId: 'a',
      producerId: 'p',
      producerName: 'p',
      kind: 'ANALYSIS',
      schedule: null,
      evidenceBoundary: null,
    },
  }) as const;

describe('TokenIdentities', () => {
  it('remembers at most its bound, forgetting the oldest first', () => {
    const identities = new TokenIdentities(2);
    identities.remember(runCaller(1));
    identities.remember(runCaller(2));
    identities.remember(runCaller(3));
    expect(identities.get('k1')).toBeUndefined();
    expect(identities.get('k2')).toMatchObject({ run: { id: 'r2' } });
    expect(identities.get('k3')).toMatchObject({ run: { id: 'r3' } });
  });

  it('remembers operator tokens beside run tokens, by token key', () => {
    const identities = new TokenIdentities(2);
    identities.remember({ kind: 'operator', agentId: 'a', tokenKey: 'o1', operatorTokenId: 't1' });
    identities.remember(runCaller(1));
    expect(identities.get('o1')).toEqual({
      kind: 'operator',
      agentId: 'a',
      tokenKey: 'o1',
      operatorTokenId: 't1',
    });
    identities.remember(runCaller(2));
    expect(identities.get('o1')).toBeUndefined();
  });
});

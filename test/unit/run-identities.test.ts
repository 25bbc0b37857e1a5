// Issue 14 item 4: the run identities a process remembers are bounded (oldest out first) and never
// carry a status.
import { describe, expect, it } from 'vitest';
import { RunIdentities } from '../../src/auth/caller.js';

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

describe('RunIdentities', () => {
  it('remembers at most its bound, forgetting the oldest first', () => {
    const identities = new RunIdentities(2);
    identities.remember(runCaller(1));
    identities.remember(runCaller(2));
    identities.remember(runCaller(3));
    expect(identities.get('k1')).toBeUndefined();
    expect(identities.get('k2')?.run.id).toBe('r2');
    expect(identities.get('k3')?.run.id).toBe('r3');
  });
});

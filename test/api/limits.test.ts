// Request limits: abusive documents are refused at validation, before any resolver or SQL runs.
import { getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgentFixture, startHarness, type AgentFixture, type Harness } from '../support/harness.js';

let h: Harness;
let fx: AgentFixture;

beforeAll(async () => {
  h = await startHarness();
  fx = await createAgentFixture(h, { instruments: ['ETH'] });
});
afterAll(async () => {
  await h.close();
});

describe('GraphQL request limits', () => {
  it('refuses too many aliases of one field', async () => {
    const aliases = Array.from({ length: 50 }, (_, i) => `a${i}: memoryTypes { type }`).join(' ');
    const result = await h.gql(`{ ${aliases} }`, {}, fx.operatorToken);
    expect(result.data).toBeUndefined();
    expect(JSON.stringify(result.errors)).toMatch(/alias/i);
  });

  it('refuses documents with too many tokens', async () => {
    const result = await h.gql(`{ memoryTypes { ${'type count '.repeat(1500)} } }`, {}, fx.operatorToken);
    expect(result.data).toBeUndefined();
    expect(JSON.stringify(result.errors)).toMatch(/token/i);
  });

  it('still answers the introspection query GraphiQL sends', async () => {
    const result = await h.gql(getIntrospectionQuery(), {}, null);
    expect(result.errors).toBeUndefined();
    expect(JSON.stringify(result.data)).toContain('memoryAdded');
  });
});

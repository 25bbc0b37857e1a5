// Request limits: abusive documents are refused at validation, before any resolver or SQL runs.
import { getIntrospectionQuery, parse, specifiedRules, validate } from 'graphql';
import { documentLimitError } from '../../src/http/document-limits.js';
import { schema } from '../../src/schema/index.js';
import { MEMORY_ADDED } from '../support/live.js';
import { CREATE_MEMORY } from '../support/harness.js';
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

  it('S3: still answers the introspection query GraphiQL sends, without a token', async () => {
    const result = await h.gql(getIntrospectionQuery(), {}, null);
    expect(result.errors).toBeUndefined();
    expect(JSON.stringify(result.data)).toContain('memoryAdded');
  });
});

/** The slowest documents for graphql-js validation we know of, each at most 10 KB. */
const adversarial: Record<string, string> = {
  'one field 1,990 times': `{ memoryTypes { ${'type '.repeat(1990)} } }`,
  'one field 44 times': `{ memoryTypes { ${'type '.repeat(44)} } }`,
  'a fragment spread four times': `{ ...F ...F ...F ...F } fragment F on Query { memoryTypes { ${'type count '.repeat(300)} } }`,
  'ten distinct fragments selecting one field': `{ ${range(10, (i) => `...D${i}`)} } ${range(10, (i) => `fragment D${i} on Query { memoryTypes { ${'type '.repeat(10)} } }`)}`,
  'aliases multiplying down a path': `{ ${range(10, () => `memories { edges { ${range(10, () => `node { ${'id '.repeat(10)} }`)} } }`)} }`,
  'fragments multiplying down a path': `{ ${range(10, (i) => `...A${i}`)} } ${range(10, (i) => `fragment A${i} on Query { memories { edges { ${range(10, (j) => `...B${i}_${j}`)} } } }`)} ${range(100, (j) => `fragment B${Math.floor(j / 10)}_${j % 10} on MemoryEdge { node { id type } }`)}`,
  'deep introspection': `{ __schema { types { fields { type { ofType { ofType { ofType { ofType { ofType { ofType { name } } } } } } } } } } }`,
  'unknown fields': `{ ${'a '.repeat(1990)} }`,
};

function range(n: number, item: (i: number) => string): string {
  return Array.from({ length: n }, (_, i) => item(i)).join(' ');
}

/** Parse + limits + validation as the server runs them: the fastest of five warm runs, since a busy machine (CI, parallel test files) adds scheduling noise that is not the document's cost. */
function parseAndValidateMs(query: string): { ms: number; accepted: boolean } {
  let best = Infinity;
  let accepted = false;
  for (let round = 0; round < 6; round++) {
    const started = performance.now();
    const document = parse(query, { maxTokens: 2000 });
    const limited = documentLimitError(document);
    const errors = limited ? [limited] : validate(schema, document, specifiedRules);
    if (round > 0) best = Math.min(best, performance.now() - started);
    accepted = errors.length === 0;
  }
  return { ms: best, accepted };
}

describe('S3: cost before trust', () => {
  it('S3: every adversarial document is parsed and validated in under 50 ms', () => {
    parseAndValidateMs(getIntrospectionQuery()); // warm up the JIT
    for (const [name, query] of Object.entries(adversarial)) {
      expect(query.length, name).toBeLessThanOrEqual(10_240);
      const { ms } = parseAndValidateMs(query);
      expect(ms, name).toBeLessThan(50);
    }
  });

  it('S3: the documents real clients send stay accepted by the limits', () => {
    for (const query of [getIntrospectionQuery(), MEMORY_ADDED, CREATE_MEMORY]) {
      expect(documentLimitError(parse(query))).toBeNull();
    }
  });

  it('S3: a document that makes validation quadratic is refused before validation with a clear error', async () => {
    const result = await h.gql(adversarial['aliases multiplying down a path']!, {}, fx.operatorToken);
    expect(result.data).toBeUndefined();
    expect(result.errors?.[0]?.message).toMatch(/^Document too complex/);
  });

  it('S3: a 10 KB document without a token is refused with 401 before it is parsed, in under 50 ms', async () => {
    const query = adversarial['one field 1,990 times']!;
    let best = Infinity;
    for (let round = 0; round < 3; round++) {
      const started = performance.now();
      const response = await h.fetch('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: `# ${round}\n${query}` }), // a comment must not help (no parse cache)
      });
      best = Math.min(best, performance.now() - started);
      expect(response.status).toBe(401);
      const body = (await response.json()) as { errors: { extensions: { code: string } }[] };
      expect(body.errors[0]!.extensions.code).toBe('UNAUTHENTICATED');
    }
    expect(best).toBeLessThan(50);
  });

  it('S3: an anonymous body over 16 KiB is refused before it is read; anonymous non-introspection is refused', async () => {
    const big = await h.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer garbage' },
      body: JSON.stringify({ query: `{ __typename }`, variables: { pad: 'x'.repeat(20_000) } }),
    });
    expect(big.status).toBe(401);
    const mixed = await h.gql('{ __typename memoryTypes { type } }', {}, null);
    expect(mixed.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const typename = await h.gql('{ __typename }', {}, null);
    expect(typename.data).toEqual({ __typename: 'Query' });
  });
});

describe('S3: no way around the gate', () => {
  it('S3: other spellings of the endpoint (//graphql, /graphql/) are gated like /graphql', async () => {
    for (const path of ['//graphql', '/graphql/']) {
      const response = await h.fetch(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ memories { edges { cursor } } }' }),
      });
      const body = (await response.json()) as { data?: unknown; errors?: { extensions: { code: string } }[] };
      expect(body.data, path).toBeUndefined();
      expect(body.errors?.[0]?.extensions.code, path).toBe('UNAUTHENTICATED');
    }
  });

  it('S3: an anonymous body without a length (chunked) is refused before it is read', async () => {
    const bytes = new TextEncoder().encode(
      JSON.stringify({ query: '{ __typename }', pad: 'x'.repeat(100_000) }),
    );
    const body = new ReadableStream({
      start(controller) {
        controller.enqueue(bytes);
        controller.close();
      },
    });
    const response = await h.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(401);
  });

  it('S3: anonymous introspection may ask for the schema once, not thirteen times', async () => {
    const full = getIntrospectionQuery().replace('__schema', 'a: __schema');
    const many = full.replace(
      /a: __schema \{/,
      (match) => `${'x: __schema { queryType { name } } '.repeat(12)}${match}`,
    );
    expect((await h.gql(many, {}, null)).errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect((await h.gql(getIntrospectionQuery(), {}, null)).errors).toBeUndefined();
  });

  it('S3: a document over 64 KiB is refused before parsing, whoever sends it', async () => {
    const query = `{ tradingContext(instrument: """${'\n  a'.repeat(40_000)}""") { at } }`;
    const started = performance.now();
    const result = await h.gql(query, {}, fx.operatorToken);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(result.errors?.[0]?.message).toMatch(/larger than 65536 bytes/);
  });
});

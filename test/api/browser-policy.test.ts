// S2 browser safety over HTTP: JSON-only POSTs (415 otherwise, nothing executed), no mutation by GET,
// CORS only for CORS_ORIGINS and never with credentials, security headers, offline GraphiQL, switches.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createAgentFixture, startHarness, startRun, type Harness } from '../support/harness.js';

let h: Harness;
let webRoot: string;
let runToken: string;

const CREATE_AGENT = 'mutation($n: String!) { createAgent(input: { name: $n }) { id } }';
const CREATE_MEMORY = 'mutation($i: CreateMemoryInput!) { createMemory(input: $i) { __typename } }';
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

async function agentNames(): Promise<string[]> {
  const rows = await h.db.sql.query<{ name: string }>('SELECT name FROM "Agent" ORDER BY name');
  return rows.map((a) => a.name);
}

async function memoryCount(): Promise<number> {
  const [row] = await h.db.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM "Memory"');
  return row!.n;
}

beforeAll(async () => {
  webRoot = await mkdtemp(path.join(os.tmpdir(), 'memory-web-'));
  await writeFile(path.join(webRoot, 'index.html'), '<!doctype html><title>page</title>');
  h = await startHarness({ webRoot });
  const fx = await createAgentFixture(h);
  runToken = (await startRun(h, fx.producers.adhoc!.id)).token;
});

afterAll(async () => {
  await h?.close();
  await rm(webRoot, { recursive: true, force: true });
});

describe('S2: only JSON POSTs execute', () => {
  it('S2: a form-encoded POST is refused with 415 and executes nothing', async () => {
    const before = await agentNames();
    const form = new URLSearchParams({ query: CREATE_AGENT, variables: JSON.stringify({ n: 'by-form' }) });
    const multipart = new FormData();
    multipart.set('operations', JSON.stringify({ query: CREATE_AGENT, variables: { n: 'by-multipart' } }));
    multipart.set('map', '{}');
    const bodies: [string | undefined, BodyInit][] = [
      ['application/x-www-form-urlencoded', form.toString()],
      [undefined, multipart], // fetch sets multipart/form-data with its boundary
      ['text/plain', JSON.stringify({ query: CREATE_AGENT, variables: { n: 'by-text' } })],
      ['text/plain;charset=UTF-8', JSON.stringify({ query: CREATE_AGENT, variables: { n: 'by-text2' } })],
      ['application/graphql', 'mutation { createAgent(input: { name: "by-graphql" }) { id } }'],
      ['application/graphql-response+json', JSON.stringify({ query: CREATE_AGENT, variables: { n: 'x' } })],
    ];
    for (const [contentType, body] of bodies) {
      const response = await h.fetch('/graphql', {
        method: 'POST',
        headers: { ...admin, ...(contentType ? { 'content-type': contentType } : {}) },
        body,
      });
      expect(response.status, String(contentType)).toBe(415);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await response.json()).toEqual({
        errors: [
          { message: 'Send the body as application/json', extensions: { code: 'UNSUPPORTED_MEDIA_TYPE' } },
        ],
      });
    }
    expect(await agentNames()).toEqual(before);
  });

  it('S2: REST POST /api/v1/memories refuses text/plain and form bodies with 415 and writes nothing', async () => {
    const before = await memoryCount();
    const memory = JSON.stringify({ type: 'note', scope: 'AGENT', content: 'by text/plain' });
    for (const [contentType, body] of [
      ['text/plain', memory],
      ['application/x-www-form-urlencoded', 'type=note&scope=AGENT&content=x'],
      [null, memory],
    ] as const) {
      const response = await h.fetch('/api/v1/memories', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${runToken}`,
          ...(contentType ? { 'content-type': contentType } : {}),
        },
        body,
      });
      expect(response.status).toBe(415);
      expect(await response.json()).toEqual({
        error: 'Send the body as application/json',
        code: 'unsupported_media_type',
      });
    }
    expect(await memoryCount()).toBe(before);
    // The contract's JSON body still writes.
    const ok = await h.fetch('/api/v1/memories', {
      method: 'POST',
      headers: { authorization: `Bearer ${runToken}`, 'content-type': 'application/json; charset=utf-8' },
      body: memory,
    });
    expect(ok.status).toBe(201);
    expect(await memoryCount()).toBe(before + 1);
  });

  it('S2: JSON POSTs with a charset or as application/graphql+json execute', async () => {
    for (const contentType of [
      'application/json',
      'application/json; charset=utf-8',
      'application/graphql+json; charset=utf-8',
    ]) {
      const response = await h.fetch('/graphql', {
        method: 'POST',
        headers: { ...admin, 'content-type': contentType },
        body: JSON.stringify({ query: '{ __typename }' }),
      });
      expect(response.status, contentType).toBe(200);
      expect(await response.json()).toEqual({ data: { __typename: 'Query' } });
    }
  });

  it('S2: a GET never executes a mutation, while a GET query still works', async () => {
    const before = await agentNames();
    const mutation = new URLSearchParams({ query: CREATE_AGENT, variables: JSON.stringify({ n: 'by-get' }) });
    const refused = await h.fetch(`/graphql?${mutation}`, { headers: admin });
    expect(refused.status).toBe(405);
    expect(await agentNames()).toEqual(before);
    const memoryByGet = new URLSearchParams({
      query: CREATE_MEMORY,
      variables: JSON.stringify({ i: { type: 'note', scope: 'AGENT', content: 'by GET' } }),
    });
    const count = await memoryCount();
    expect(
      (await h.fetch(`/graphql?${memoryByGet}`, { headers: { authorization: `Bearer ${runToken}` } })).status,
    ).toBe(405);
    expect(await memoryCount()).toBe(count);
    const query = await h.fetch(`/graphql?${new URLSearchParams({ query: '{ __typename }' })}`, {
      headers: admin,
    });
    expect(await query.json()).toEqual({ data: { __typename: 'Query' } });
  });
});

describe('S2: CORS', () => {
  const preflight = (server: Harness, origin: string) =>
    server.fetch('/graphql', {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });

  it('S2: CORS_ORIGINS unset: a foreign origin gets no CORS headers, preflight or request', async () => {
    const refused = await preflight(h, 'https://evil.example');
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    expect(refused.headers.get('access-control-allow-credentials')).toBeNull();
    const request = await h.fetch('/graphql', {
      method: 'POST',
      headers: { ...admin, origin: 'https://evil.example', 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect(request.headers.get('access-control-allow-origin')).toBeNull();
    expect(request.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('S2: CORS_ORIGINS allows exactly the listed origins, never with credentials', async () => {
    const listed = await startHarness({
      server: { corsOrigins: ['https://ops.example.com', 'http://localhost:5173'] },
    });
    try {
      for (const origin of ['https://ops.example.com', 'http://localhost:5173']) {
        const allowed = await preflight(listed, origin);
        expect(allowed.status).toBe(204);
        expect(allowed.headers.get('access-control-allow-origin')).toBe(origin);
        expect(allowed.headers.get('access-control-allow-credentials')).toBeNull();
        expect(allowed.headers.get('access-control-allow-headers')).toMatch(/authorization/);
        const request = await listed.fetch('/graphql', {
          method: 'POST',
          headers: { ...admin, origin, 'content-type': 'application/json' },
          body: JSON.stringify({ query: '{ __typename }' }),
        });
        expect(request.headers.get('access-control-allow-origin')).toBe(origin);
        expect(request.headers.get('access-control-allow-credentials')).toBeNull();
        expect(request.headers.get('vary')).toMatch(/Origin/);
      }
      for (const origin of ['https://evil.example', 'https://ops.example.com.evil.example', 'null']) {
        const refused = await preflight(listed, origin);
        expect(refused.headers.get('access-control-allow-origin')).toBeNull();
        expect(refused.headers.get('access-control-allow-credentials')).toBeNull();
      }
    } finally {
      await listed.close();
    }
  });
});

describe('S2: headers, GraphiQL and switches', () => {
  const html = { accept: 'text/html' };

  it("S2: the page and GraphiQL carry CSP (self only), nosniff, frame-ancestors 'none' and no-referrer", async () => {
    for (const [pathname, scripts] of [
      ['/', "script-src 'self'"],
      ['/graphql', "script-src 'self'"],
    ] as const) {
      const response = await h.fetch(pathname, { headers: html });
      expect(response.status, pathname).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      const csp = response.headers.get('content-security-policy') ?? '';
      const directives = Object.fromEntries(
        csp.split(';').map((d) => {
          const [name, ...values] = d.trim().split(/\s+/);
          return [name, values.join(' ')];
        }),
      );
      expect(directives['default-src'], pathname).toBe("'self'");
      expect(`script-src ${directives['script-src']}`).toBe(scripts);
      expect(directives['connect-src']).toBe("'self'");
      expect(directives['frame-ancestors']).toBe("'none'");
      expect(directives['object-src']).toBe("'none'");
      // Nothing but the service itself (and inline data: images/fonts) may be loaded.
      expect(csp).not.toMatch(/https?:|\*|'unsafe-eval'/);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    }
  });

  it('S2: JSON API responses carry nosniff and a deny-all CSP', async () => {
    for (const response of [
      await h.fetch('/graphql', {
        method: 'POST',
        headers: { ...admin, 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ __typename }' }),
      }),
      await h.fetch('/healthz'),
      await h.fetch('/api/v1/memories', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      }),
    ]) {
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('content-security-policy')).toBe(
        "default-src 'none'; frame-ancestors 'none'",
      );
    }
  });

  it('S2: GraphiQL works offline: the page references only same-origin assets, all served', async () => {
    const page = await (await h.fetch('/graphql', { headers: html })).text();
    expect(page).not.toMatch(/https?:\/\//);
    expect(page).not.toMatch(/<script>|<script type="module">|<style>/); // no inline script or style element
    const references = [...page.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(references.filter((r) => r !== 'data:,').length).toBe(4);
    const scripts: string[] = [];
    for (const reference of references) {
      if (reference === 'data:,') continue; // the favicon: nothing to fetch
      expect(reference).toMatch(/^\/graphiql\/[a-z.]+\?v=[0-9a-f]{12}$/);
      const asset = await h.fetch(reference);
      expect(asset.status, reference).toBe(200);
      expect(asset.headers.get('content-type')).toMatch(/^text\/(javascript|css)/);
      expect(asset.headers.get('x-content-type-options')).toBe('nosniff');
      if (reference.includes('.js')) scripts.push(await asset.text());
    }
    // The editor's workers are same-origin files too (no blob: URLs, which the CSP does not allow).
    const setup = scripts.find((s) => s.includes('MonacoEnvironment'))!;
    const workers = [...setup.matchAll(/"(\/graphiql\/[a-z.]+\.worker\.js\?v=[0-9a-f]{12})"/g)].map(
      (m) => m[1]!,
    );
    expect(workers).toHaveLength(3);
    for (const worker of workers) expect((await h.fetch(worker)).status).toBe(200);
    // The options (title, default query, WebSocket subscriptions) ride in a JSON data block.
    const options = JSON.parse(
      /<script type="application\/json" id="graphiql-options">(.*?)<\/script>/s.exec(page)![1]!,
    );
    expect(options).toMatchObject({ title: 'Memory service', subscriptionsProtocol: 'WS' });
    expect(options.defaultQuery).toContain('memoryTypes');
  });

  it('S2: GRAPHIQL=0 turns GraphiQL off; INTROSPECTION=0 refuses introspection but not queries', async () => {
    const off = await startHarness({ server: { graphiql: false, introspection: false } });
    try {
      const page = await off.fetch('/graphql', { headers: html });
      expect(await page.text()).not.toContain('graphiql');
      expect((await off.fetch('/graphiql/start.js')).status).toBe(404);
      const introspection = await off.gql(getIntrospectionQuery());
      expect(introspection.data).toBeUndefined();
      expect(introspection.errors?.[0]?.message).toMatch(/introspection/i);
      expect(await off.ok('{ __typename }')).toEqual({ __typename: 'Query' });
    } finally {
      await off.close();
    }
    // Default: introspection answers (GraphiQL needs it).
    const on = await h.gql('{ __schema { queryType { name } } }');
    expect(on.data).toEqual({ __schema: { queryType: { name: 'Query' } } });
  });
});

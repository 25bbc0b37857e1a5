// `npm start` as a newcomer runs it: embedded database, migrations, demo data, GraphiQL; clean SIGTERM.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runServiceToExit, startServiceProcess, type ServiceProcess } from '../support/processes.js';

let dataDir: string;
let service: ServiceProcess;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'memory-main-'));
  service = await startServiceProcess({ DATA_DIR: dataDir, DATABASE_URL: '', ADMIN_TOKEN: '', DEMO: '' });
}, 90_000);

afterAll(async () => {
  if (service.child.exitCode === null) await service.stop('SIGKILL');
  await rm(dataDir, { recursive: true, force: true });
});

describe('the service process (embedded mode)', () => {
  it('applies migrations, seeds the demo, prints the admin token and an operator link, serves GraphiQL', async () => {
    for (let i = 0; i < 50 && !/#token=op_\S+\n/.test(service.output()); i++)
      await new Promise((r) => setTimeout(r, 100));
    const out = service.output();
    expect(out).toMatch(/admin token: +adm_/);
    expect(out).toMatch(/open: +http:\/\/127\.0\.0\.1:\d+\/#token=op_/);
    const graphiql = await fetch(`${service.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(graphiql.status).toBe(200);
    const html = await graphiql.text();
    expect(html).toContain('GraphiQL');
    const token = /#token=(op_\S+)/.exec(out)![1]!;
    // GraphiQL opens with the demo agent's token in its headers editor and a query that runs as it is.
    const options = JSON.parse(/id="graphiql-options">([^<]*)</.exec(html)![1]!) as Record<string, string>;
    expect(JSON.parse(options.headers!)).toEqual({ Authorization: `Bearer ${token}` });
    expect(options.defaultQuery).toContain('query Types');
    const response = await fetch(`${service.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: '{ memoryTypes { type count } }' }),
    });
    const { data } = (await response.json()) as { data: { memoryTypes: { type: string; count: number }[] } };
    const types = data.memoryTypes.map((t) => t.type);
    for (const type of [
      'ema_handoff',
      'trading_decision',
      'review',
      'agent_learnings',
      'macro_note_correction',
    ]) {
      expect(types).toContain(type);
    }
    expect(await (await fetch(`${service.url}/readyz`)).json()).toEqual({
      status: 'ready',
      database: 'pglite',
    });
  });

  it('SIGTERM during idle exits 0 within 5 s', async () => {
    const { code, ms } = await service.stop('SIGTERM');
    expect(code).toBe(0);
    expect(ms).toBeLessThan(5000);
  });

  it('a restart keeps the data, applies no migration again and prints a fresh working sign-in link', async () => {
    service = await startServiceProcess({ DATA_DIR: dataDir, DATABASE_URL: '', ADMIN_TOKEN: '', DEMO: '' });
    for (let i = 0; i < 50 && !/#token=op_\S+\n/.test(service.output()); i++)
      await new Promise((r) => setTimeout(r, 100));
    const out = service.output();
    expect(out).toContain('already seeded');
    expect(out).not.toContain('migrations applied');
    const token = /#token=(op_\S+)/.exec(out)![1]!;
    const response = await fetch(`${service.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: '{ memories(first: 1) { edges { node { id } } } }' }),
    });
    const { data } = (await response.json()) as { data: { memories: { edges: unknown[] } } };
    expect(data.memories.edges).toHaveLength(1);
  });
});

describe('S12: a refused setting stops the start', () => {
  it('S12: a malformed limit or log level exits 2 naming each variable and what it accepts, no stack', async () => {
    const refusedDir = await mkdtemp(path.join(os.tmpdir(), 'memory-main-s12-'));
    try {
      const { code, output } = await runServiceToExit({
        DATA_DIR: refusedDir,
        DATABASE_URL: '',
        ADMIN_TOKEN: '',
        MAX_CONNECTIONS_PER_TOKEN: 'abc',
        LOG_LEVEL: 'nonsense',
      });
      expect(code).toBe(2);
      expect(output).toMatch(
        /configuration error: MAX_CONNECTIONS_PER_TOKEN="abc": expected an integer from 1 to/,
      );
      expect(output).toMatch(
        /configuration error: LOG_LEVEL="nonsense": expected one of fatal, error, warn, info/,
      );
      expect(output).not.toMatch(/\n\s+at /);
      expect(output).not.toContain('listening on');
    } finally {
      await rm(refusedDir, { recursive: true, force: true });
    }
  }, 90_000);
});

// MCP on /mcp in-process: the S3 gate in front of it, the methods it answers, and statelessness —
// the SDK's Client works through a round-robin "load balancer" over two service instances.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { createServer, type Server } from '../../src/server.js';
import {
  ADMIN_TOKEN,
  createAgentFixture,
  startHarness,
  startRun,
  writeOk,
  type AgentFixture,
  type Harness,
} from '../support/harness.js';
import { mcpRequest, nestedJsonText } from '../support/mcp.js';

let h: Harness;
let second: Server;
let fx: AgentFixture;
const logLines: string[] = [];

beforeAll(async () => {
  h = await startHarness({ logLines });
  // A second instance on the same database, as behind a load balancer.
  second = createServer({
    db: h.db,
    events: h.events,
    adminToken: ADMIN_TOKEN,
    logger: createLogger('silent'),
  });
  fx = await createAgentFixture(h, { instruments: ['ETH'] });
});
afterAll(async () => {
  await second.close();
  await h.close();
});

const listTools = (token: string | null) => mcpRequest(token, { method: 'tools/list' });
/** The same request with other headers (a chunked body, a GET, a text/plain POST). */
const withHeaders = (init: RequestInit, headers: Record<string, string>): RequestInit => ({
  ...init,
  headers: { ...(init.headers as Record<string, string>), ...headers },
});

describe('/mcp behind the S3 gate', () => {
  it('S3/MCP: an anonymous /mcp request is refused (401) before its body is read, whatever its size', async () => {
    const small = await h.fetch('/mcp', listTools(null));
    const chunked = await h.fetch('/mcp', {
      ...listTools('op_unknown-token'),
      // A body that never ends: answered all the same, so it was never read.
      body: new ReadableStream({ start: (controller) => controller.enqueue(new Uint8Array(1024)) }),
      duplex: 'half',
    } as RequestInit);
    for (const response of [small, chunked]) {
      expect(response.status).toBe(401);
      const body = (await response.json()) as { errors: { extensions: { code: string } }[] };
      expect(body.errors[0]!.extensions.code).toBe('UNAUTHENTICATED');
    }
  });

  it('MCP: GET /mcp answers 405 (no server-initiated stream) to a caller and 401 without a token', async () => {
    const { headers } = withHeaders(listTools(fx.operatorToken), { accept: 'text/event-stream' });
    const caller = await h.fetch('/mcp', { headers });
    expect(caller.status).toBe(405);
    expect(caller.headers.get('allow')).toBe('POST');
    expect((await h.fetch('/mcp', { headers: { accept: 'text/event-stream' } })).status).toBe(401);
  });

  it('S2/MCP: a form-encoded POST to /mcp is refused with 415 before anything runs', async () => {
    const response = await h.fetch(
      '/mcp',
      withHeaders(listTools(fx.operatorToken), { 'content-type': 'text/plain' }),
    );
    expect(response.status).toBe(415);
  });
});

describe('/mcp is stateless', () => {
  it('MCP: a tools/call needs no session — no initialize before it, no mcp-session-id after it', async () => {
    const response = await h.fetch(
      '/mcp',
      mcpRequest(fx.operatorToken, {
        method: 'tools/call',
        params: { name: 'list_memory_types', arguments: {} },
      }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toBeNull();
    const body = (await response.json()) as { id: number; result: { structuredContent: unknown } };
    expect(body).toMatchObject({ id: 1, result: { structuredContent: { types: [] } } });
  });

  it('MCP: the SDK client works through a round-robin balancer over two instances', async () => {
    const run = await startRun(h, fx.producers.adhoc!.id);
    const research = await writeOk(h, run.token, { type: 'note', scope: 'AGENT', content: 'balanced' });
    const instances = [h.server, second];
    const served: number[] = [];
    let next = 0;
    const balancer = async (url: string | URL, init?: RequestInit) => {
      const index = next++ % instances.length;
      served.push(index);
      return instances[index]!.yoga.fetch(String(url), init as Parameters<Server['yoga']['fetch']>[1]);
    };
    const client = new Client({ name: 'balanced', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('http://balancer/mcp'), {
        fetch: balancer,
        requestInit: { headers: { authorization: `Bearer ${fx.operatorToken}` } },
      }),
    );
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('get_memory');
    const result = await client.callTool({ name: 'get_memory', arguments: { id: research.id } });
    expect(result.structuredContent).toMatchObject({ memory: { id: research.id, content: 'balanced' } });
    await client.close();
    expect(new Set(served)).toEqual(new Set([0, 1]));
  });
});

describe('list_memories filters (B2, B11)', () => {
  it('MCP/B2, B11: list_memories narrows by search text and instruments, like the memories filter', async () => {
    const agent = await createAgentFixture(h, { instruments: ['BTC', 'ETH'] });
    const run = await startRun(h, agent.producers.adhoc!.id);
    // One second apart, so newest first is the written order reversed.
    const start = Date.now();
    let n = 0;
    const write = (instruments: string[], content: string) => {
      h.clock.set(new Date(start + ++n * 1000));
      return writeOk(h, run.token, {
        type: 'note',
        scope: instruments.length ? 'INSTRUMENTS' : 'AGENT',
        instruments,
        content,
      });
    };
    await write(['ETH'], 'ETH looks bearish');
    await write(['BTC'], 'BTC looks bearish');
    await write([], 'bearish in general');
    await write(['ETH'], 'ETH calm');
    h.clock.real();
    const list = async (args: Record<string, unknown>) => {
      const response = await h.fetch(
        '/mcp',
        mcpRequest(agent.operatorToken, {
          method: 'tools/call',
          params: { name: 'list_memories', arguments: args },
        }),
      );
      const body = (await response.json()) as {
        result: { structuredContent: { memories: { content: string }[] } };
      };
      return body.result.structuredContent.memories.map((memory) => memory.content);
    };
    expect(await list({ text: 'bearish', instruments: ['ETH'] })).toEqual(['ETH looks bearish']);
    expect(await list({ text: 'bearish' })).toEqual([
      'bearish in general',
      'BTC looks bearish',
      'ETH looks bearish',
    ]);
    expect(await list({ instruments: ['ETH'] })).toEqual(['ETH calm', 'ETH looks bearish']);
  });
});

const deepWrite = (depth: number) =>
  `"type":"note","scope":"AGENT","content":"deep ${depth}","metadata":${nestedJsonText(depth)}`;
const serverFaults = () => logLines.filter((line) => (JSON.parse(line) as { level: number }).level >= 50);

describe('M7: metadata deeper than W7 allows is a validation result on every write path', () => {
  const post = (path: string, token: string, body: string) =>
    h.fetch(path, { ...mcpRequest(token, {}), body });
  const writeThrough = async (token: string, depth: number) => {
    const rest = await post('/api/v1/memories', token, `{${deepWrite(depth)}}`);
    const graphql = await post(
      '/graphql',
      token,
      `{"query":"mutation($i: CreateMemoryInput!) { createMemory(input: $i) { __typename ... on MemoryValidationError { field message } } }","variables":{"i":{${deepWrite(depth)}}}}`,
    );
    const mcp = await post(
      '/mcp',
      token,
      `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"write_memory","arguments":{${deepWrite(depth)}}}}`,
    );
    return {
      rest: { status: rest.status, body: (await rest.json()) as Record<string, unknown> },
      graphql: ((await graphql.json()) as { data: { createMemory: Record<string, unknown> } }).data
        .createMemory,
      mcp: (await mcp.json()) as { id: number; result?: { isError?: boolean; structuredContent: unknown } },
    };
  };

  it('M7: write_memory nested 10,000 levels answers the REST body (validation_error, metadata), logs no fault', async () => {
    const run = await startRun(h, fx.producers.adhoc!.id);
    const faultsBefore = serverFaults().length;
    const { rest, graphql, mcp } = await writeThrough(run.token, 10_000);
    expect(rest).toEqual({
      status: 400,
      body: {
        error: 'metadata must not be nested more than 32 levels deep.',
        code: 'validation_error',
        field: 'metadata',
      },
    });
    expect(graphql).toEqual({
      __typename: 'MemoryValidationError',
      field: 'metadata',
      message: rest.body.error,
    });
    expect(mcp).toMatchObject({ id: 7, result: { isError: true, structuredContent: rest.body } });
    expect(serverFaults().slice(faultsBefore)).toEqual([]);
    const { memories } = await h.ok<{ memories: { edges: unknown[] } }>(
      '{ memories(first: 5, filter: { types: ["note"], text: "deep" }) { edges { node { id } } } }',
      {},
      fx.operatorToken,
    );
    expect(memories.edges).toEqual([]);
  });

  it('M7: the bound is W7 on every path — 32 levels are stored, 33 are refused alike', async () => {
    const run = await startRun(h, fx.producers.adhoc!.id);
    const refused = await writeThrough(run.token, 33);
    expect(refused.rest.status).toBe(400);
    expect(refused.graphql).toMatchObject({ __typename: 'MemoryValidationError', field: 'metadata' });
    expect(refused.mcp.result).toMatchObject({ isError: true, structuredContent: refused.rest.body });
    const stored = await writeThrough(run.token, 32);
    expect(stored.rest.status).toBe(201);
    expect(stored.graphql).toEqual({ __typename: 'CreateMemorySuccess' });
    expect(stored.mcp.result?.isError).toBeUndefined();
  });
});

describe('M8: JSON-RPC batches are refused on /mcp', () => {
  const call = (id: number, name: string, args: Record<string, unknown>) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: args },
  });
  const postBatch = (token: string, batch: unknown[]) =>
    h.fetch('/mcp', { ...mcpRequest(token, {}), body: JSON.stringify(batch) });
  const stored = async (content: string) => {
    const { memories } = await h.ok<{ memories: { edges: { node: { content: string } }[] } }>(
      '{ memories(first: 50, filter: { types: ["note"] }) { edges { node { content } } } }',
      {},
      fx.operatorToken,
    );
    return memories.edges.filter((edge) => edge.node.content === content).length;
  };

  it('M8: a batch with write_memory in it answers -32600 Invalid Request and stores nothing', async () => {
    const run = await startRun(h, fx.producers.adhoc!.id);
    const write = { type: 'note', scope: 'AGENT', content: 'sent in a batch' };
    const response = await postBatch(run.token, [
      call(1, 'write_memory', write),
      call(2, 'list_memory_types', {}),
      call(3, 'write_memory', write),
    ]);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32600, message: expect.stringMatching(/^Invalid Request: JSON-RPC batches/) },
      id: null,
    });
    expect(await stored('sent in a batch')).toBe(0);
  });

  it('M8: a batch of one and an empty batch are refused alike; the same message alone runs', async () => {
    const run = await startRun(h, fx.producers.adhoc!.id);
    const write = call(1, 'write_memory', { type: 'note', scope: 'AGENT', content: 'alone, not batched' });
    for (const batch of [[write], []]) {
      const response = await postBatch(run.token, batch);
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32600);
    }
    expect(await stored('alone, not batched')).toBe(0);
    const single = await h.fetch('/mcp', { ...mcpRequest(run.token, {}), body: JSON.stringify(write) });
    expect(await single.json()).toMatchObject({
      id: 1,
      result: { structuredContent: { memory_id: expect.any(String) } },
    });
    expect(await stored('alone, not batched')).toBe(1);
  });
});

describe('B11: a bounded search text on MCP', () => {
  it('B11: list_memories with more than 16 search words answers a validation result naming text', async () => {
    const call = async (text: string) => {
      const response = await h.fetch(
        '/mcp',
        mcpRequest(fx.operatorToken, {
          method: 'tools/call',
          params: { name: 'list_memories', arguments: { text } },
        }),
      );
      return ((await response.json()) as { result: { isError?: boolean; structuredContent: unknown } })
        .result;
    };
    const words = Array.from({ length: 17 }, (_, i) => `risk${i}`);
    const refused = await call(words.join(' '));
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({ code: 'validation_error', field: 'text' });
    expect((refused.structuredContent as { error: string }).error).toMatch(/at most 16 words/);
    const answered = await call(words.slice(0, 16).join(' '));
    expect(answered.isError).toBeUndefined();
    expect(answered.structuredContent).toMatchObject({ memories: [] });
  });
});

describe('M11: instruments the agent can see', () => {
  const call = async (token: string, name: string, args: Record<string, unknown>) => {
    const response = await h.fetch(
      '/mcp',
      mcpRequest(token, { method: 'tools/call', params: { name, arguments: args } }),
    );
    return ((await response.json()) as { result: { isError?: boolean; structuredContent: any } }).result;
  };

  it('M11: list_instruments answers the selected instruments and the active catalog', async () => {
    await h.ok('mutation { upsertInstrument(input: { id: "xyz:TSLA" }) { id } }');
    await h.ok('mutation { upsertInstrument(input: { id: "HPOS", active: false }) { id } }');
    const result = await call(fx.operatorToken, 'list_instruments', {});
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent.selected).toEqual(['ETH']);
    expect(result.structuredContent.catalog).toContain('xyz:TSLA');
    expect(result.structuredContent.catalog).not.toContain('HPOS');
  });

  it('M11: an unknown name is an unknown_instrument result listing the selection; an unselected one says selected: false', async () => {
    await h.ok('mutation { upsertInstrument(input: { id: "xyz:TSLA" }) { id } }');
    for (const instrument of ['DOGE', 'eth']) {
      const result = await call(fx.operatorToken, 'get_trading_context', { instrument });
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toMatchObject({ code: 'unknown_instrument', selected: ['ETH'] });
      expect(result.structuredContent.error).toContain(JSON.stringify(instrument));
    }
    const unselected = await call(fx.operatorToken, 'get_trading_context', { instrument: 'xyz:TSLA' });
    expect(unselected.isError).toBeUndefined();
    expect(unselected.structuredContent).toMatchObject({ instrument: 'xyz:TSLA', selected: false });
    const selected = await call(fx.operatorToken, 'get_trading_context', { instrument: 'ETH' });
    expect(selected.structuredContent).toMatchObject({ instrument: 'ETH', selected: true });
  });

  it('M11: invalid_memory_target lists the selected instruments on MCP, REST and GraphQL', async () => {
    const run = await startRun(h, fx.producers.adhoc!.id);
    const write = { type: 'note', scope: 'INSTRUMENTS', instruments: ['xyz:TSLA'], content: 'x' };
    const tool = await call(run.token, 'write_memory', write);
    expect(tool.structuredContent).toMatchObject({
      code: 'invalid_memory_target',
      instrument_index: 0,
      selected: ['ETH'],
    });
    const gql = await h.ok<{ createMemory: Record<string, unknown> }>(
      `mutation($i: CreateMemoryInput!) { createMemory(input: $i) { ... on InvalidMemoryTarget { instrumentIndex selected message } } }`,
      { i: write },
      run.token,
    );
    expect(gql.createMemory).toMatchObject({ instrumentIndex: 0, selected: ['ETH'] });
    expect(gql.createMemory.message).toContain('one of: ETH');
  });
});

describe('B8: get_producer_health on MCP (issue 26 item 8)', () => {
  it('B8: a Review run reads its agent’s producer health through the SDK client, within the listing budget', async () => {
    const review = await startRun(h, fx.producers.review!.id);
    const client = new Client({ name: 'health', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('http://test/mcp'), {
        fetch: async (url, init) =>
          h.server.yoga.fetch(String(url), init as Parameters<Server['yoga']['fetch']>[1]),
        requestInit: { headers: { authorization: `Bearer ${review.token}` } },
      }),
    );
    const listed = (await client.listTools()).tools.find((tool) => tool.name === 'get_producer_health');
    // Issue 27: the tool list is budgeted per run kind; this tool's share stays small.
    const { description, inputSchema, outputSchema } = listed!;
    expect(JSON.stringify({ description, inputSchema, outputSchema }).length).toBeLessThanOrEqual(700);
    const result = await client.callTool({ name: 'get_producer_health', arguments: { window: '1h' } });
    const { producers } = result.structuredContent as { producers: { name: string; status: string }[] };
    expect(producers.map((p) => [p.name, p.status])).toEqual([
      ['adhoc', 'UNSCHEDULED'],
      // Created moments ago: none of its 5m cycles has completed since, so nothing is missing yet.
      ['analysis', 'HEALTHY'],
      ['review', 'UNSCHEDULED'],
      ['trading', 'UNSCHEDULED'],
    ]);
    await client.close();
  });
});

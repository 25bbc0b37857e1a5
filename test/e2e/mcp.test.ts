// MCP: the agents' tool channel against a real service process, with the SDK's own Client over
// Streamable HTTP (/mcp) and over stdio (a memory-mcp process) — every test runs on both transports.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscribeWs, wsClient } from '../support/live.js';
import {
  callOk,
  callTool,
  connectMcp,
  createMcpAgent,
  finishRunAt,
  MCP_ADMIN,
  McpClients,
  nestedJsonText,
  rawMcpExchange,
  repoRoot,
  restWrite,
  startMcpService,
  startRunAt,
  TRANSPORTS,
  type McpAgent,
  type TransportName,
} from '../support/mcp.js';
import type { ServiceProcess } from '../support/processes.js';
import { gqlOverHttp as gqlRequest } from '../support/processes.js';

const ALL = [
  'write_memory',
  'list_instruments',
  'get_trading_context',
  'list_memories',
  'list_memory_types',
  'get_memory',
  'get_decision_audit',
  'get_producer_health',
];
const VISIBLE: Record<string, string[]> = {
  admin: [],
  operator: [
    'list_instruments',
    'get_trading_context',
    'list_memories',
    'list_memory_types',
    'get_memory',
    'get_decision_audit',
    'get_producer_health',
  ],
  analysis: [
    'write_memory',
    'list_instruments',
    'get_trading_context',
    'list_memories',
    'list_memory_types',
    'get_memory',
  ],
  trading: ['write_memory', 'list_instruments', 'get_trading_context', 'get_memory'],
  review: ALL,
};
/** The scheduled Analysis run's evidence boundary: its records expire at boundary + 2 × 5m (X2). */
const BOUNDARY = '2026-01-05T12:00:00.000Z';

let svc: { service: ServiceProcess; stop(): Promise<void> };
let base: string;
let a: McpAgent;
let b: McpAgent;
const tokens: Record<'admin' | 'operator' | 'analysis' | 'scheduled' | 'trading' | 'review', string> =
  {} as never;
let research: string;
let foreignResearch: string;
const clients = new McpClients(() => base);

beforeAll(async () => {
  svc = await startMcpService();
  base = svc.service.url;
  [a, b] = [await createMcpAgent(base, 'mcp-a'), await createMcpAgent(base, 'mcp-b')];
  tokens.admin = MCP_ADMIN;
  tokens.operator = a.operatorToken;
  tokens.analysis = (await startRunAt(base, a.producers.adhoc)).token;
  tokens.scheduled = (await startRunAt(base, a.producers.analysis, BOUNDARY)).token;
  tokens.trading = (await startRunAt(base, a.producers.trading)).token;
  tokens.review = (await startRunAt(base, a.producers.review)).token;
  const write = (token: string, content: string) =>
    restWrite(base, token, { type: 'ema_handoff', scope: 'INSTRUMENTS', instruments: ['ETH'], content });
  research = (await write(tokens.analysis, 'ETH 5m: fast EMA above slow')).body.memory.id;
  await write(tokens.scheduled, 'late: stale on arrival (X4)');
  foreignResearch = (await write((await startRunAt(base, b.producers.adhoc)).token, 'agent B only')).body
    .memory.id;
}, 180_000);

afterAll(async () => {
  await clients.closeAll();
  await svc?.stop();
});

/** Not a tool result: an MCP error with the GraphQL code (stdio) or the gate's HTTP 401 (Streamable HTTP). */
function expectUnauthenticated(error: unknown): void {
  if (error instanceof McpError) {
    expect(error.code).toBe(-32041);
    expect(error.data).toEqual({ code: 'UNAUTHENTICATED' });
  } else {
    expect(error).toBeInstanceOf(StreamableHTTPError);
    expect((error as StreamableHTTPError).code).toBe(401);
    expect(String(error)).toContain('UNAUTHENTICATED');
  }
}

for (const transport of TRANSPORTS) {
  const as = (who: keyof typeof tokens) => clients.get(transport, tokens[who]);

  describe(`MCP over ${transport}`, { timeout: 60_000 }, () => {
    it('MCP: tools/list shows each caller kind exactly the tools it may call, with input and output schemas', async () => {
      for (const [who, expected] of Object.entries(VISIBLE)) {
        const { tools } = await (await as(who as keyof typeof tokens)).listTools();
        expect(tools.map((tool) => tool.name).sort(), who).toEqual([...expected].sort());
        for (const tool of tools) {
          expect(tool.inputSchema.type).toBe('object');
          // success | failure; get_producer_health lists none (M9's budget, src/mcp/health-tools.ts).
          if (tool.name === 'get_producer_health') expect(tool.outputSchema).toBeUndefined();
          else expect(tool.outputSchema?.anyOf, tool.name).toHaveLength(2);
        }
      }
      const scheduled = await (await as('scheduled')).listTools();
      expect(scheduled.tools.map((tool) => tool.name).sort()).toEqual([...VISIBLE.analysis!].sort());
    });

    it('MCP/X1/X2/X5: write_memory overwrites metadata expiry controls and returns the stamped expires_at', async () => {
      const written = await callOk(await as('scheduled'), 'write_memory', {
        type: 'ema_handoff',
        scope: 'INSTRUMENTS',
        instruments: ['ETH'],
        content: `stale on arrival over ${transport}`,
        metadata: {
          stale_after: '2030-01-01T00:00:00Z',
          expiry_policy: 'mine',
          valid_for_seconds: 'abc',
          keep: 1,
        },
        timeframe: '1h',
      });
      expect(written.expires_at).toBe('2026-01-05T12:10:00.000Z');
      expect(written.memory_id).toBe(written.memory.id);
      expect(written.memory).toMatchObject({
        expires_at: '2026-01-05T12:10:00.000Z',
        expiry_policy: 'analysis_schedule_v2',
        freshness: 'STALE', // X4: stored although late
        metadata: { stale_after: '2026-01-05T12:10:00.000Z', expiry_policy: 'analysis_schedule_v2', keep: 1 },
        provenance: { kind: 'ANALYSIS', schedule: '5m', evidence_boundary: BOUNDARY, run_status: 'RUNNING' },
      });
      expect(written.memory.metadata).not.toHaveProperty('valid_for_seconds');
    });

    it('MCP/C4: get_trading_context answers in snake_case, fresh research first and stubs for stale entries', async () => {
      const context = await callOk(await as('trading'), 'get_trading_context', { instrument: 'ETH' });
      expect(context.agent_id).toBe(a.agentId);
      const statuses = context.entries.map((entry: any) => entry.status);
      expect(statuses[0]).toBe('FRESH');
      expect(statuses).toContain('STALE'); // the scheduled producer's late record
      expect(statuses.indexOf('STALE')).toBeGreaterThan(statuses.lastIndexOf('FRESH'));
      for (const entry of context.entries) {
        if (entry.status === 'FRESH') expect(entry.research.content).toEqual(expect.any(String));
        else expect(entry.research).toBeNull();
      }
      expect(context.entries[0].provenance.producer_name).toBe('adhoc');
    });

    it('MCP/T1/T3: a Trading decision links what it considered; get_memory and get_decision_audit read it back', async () => {
      const decision = await callOk(await as('trading'), 'write_memory', {
        type: 'trading_decision',
        scope: 'INSTRUMENTS',
        instruments: ['ETH'],
        content: `no trade (${transport})`,
        metadata: { valid_for_seconds: 600 },
        links: [{ target_memory_id: research, link_type: 'considered' }],
      });
      expect(decision.expires_at).toEqual(expect.any(String));
      const own = await callOk(await as('trading'), 'get_memory', { id: decision.memory_id });
      expect(own.memory).toMatchObject({
        id: decision.memory_id,
        links: [{ target_memory_id: research, link_type: 'considered' }],
      });
      // §1: a Trading run reads only its own decisions — research answers like an unknown id.
      const hidden = await callTool(await as('trading'), 'get_memory', { id: research });
      const unknown = await callTool(await as('trading'), 'get_memory', { id: randomUUID() });
      expect(hidden).toEqual(unknown);
      expect(hidden).toMatchObject({ isError: true, structuredContent: { code: 'not_found' } });
      const audit = await callOk(await as('review'), 'get_decision_audit', {
        decision_id: decision.memory_id,
      });
      expect(audit.decision.id).toBe(decision.memory_id);
      expect(audit.linked.map((memory: any) => memory.id)).toEqual([research]);
      expect(audit.contexts.map((context: any) => context.instrument)).toEqual(['ETH']);
      expect(audit.contexts[0].at).toBe(audit.decision.created_at);
    });

    it('MCP/B1/B4: list_memories pages with cursors under a type filter; list_memory_types counts custom types', async () => {
      const type = `mcp_page_${transport === 'stdio' ? 'stdio' : 'http'}`;
      for (const n of [1, 2, 3]) {
        await callOk(await as('analysis'), 'write_memory', {
          type,
          scope: 'AGENT',
          content: `page record ${n}`,
        });
      }
      const first = await callOk(await as('review'), 'list_memories', {
        types: [type],
        first: 2,
        window: '24h',
      });
      expect(first.memories.map((memory: any) => memory.content)).toEqual(['page record 3', 'page record 2']);
      expect(first.page_info.has_next_page).toBe(true);
      expect(first.window).toEqual({ from: expect.any(String), to: expect.any(String) });
      const next = await callOk(await as('operator'), 'list_memories', {
        types: [type],
        window: '24h', // B4: the next page is asked with the same filter
        after: first.page_info.end_cursor,
      });
      expect(next.memories.map((memory: any) => memory.content)).toEqual(['page record 1']);
      expect(next.page_info.has_next_page).toBe(false);
      const { types } = await callOk(await as('operator'), 'list_memory_types', { window: '1h' });
      expect(types).toContainEqual({ type, count: 3 });
      // A page is capped for a model's context window.
      const tooMany = await callTool(await as('operator'), 'list_memories', { first: 51 });
      expect(tooMany).toMatchObject({
        isError: true,
        structuredContent: { code: 'validation_error', field: 'first' },
      });
    });

    it('MCP/W2/W4/W6/W7/W8: every typed write failure is isError with the REST body as structured content', async () => {
      const key = `mcp-key-${transport}-${randomUUID()}`;
      await callOk(await as('analysis'), 'write_memory', {
        type: 'note',
        scope: 'AGENT',
        content: 'first',
        idempotency_key: key,
      });
      const cases: [string, Record<string, unknown>, string, number][] = [
        [
          'link',
          {
            type: 'note',
            scope: 'AGENT',
            content: 'x',
            links: [
              { target_memory_id: research, link_type: 'supports' },
              { target_memory_id: randomUUID(), link_type: 'supports' },
            ],
          },
          'invalid_memory_link',
          422,
        ],
        [
          'target',
          { type: 'note', scope: 'INSTRUMENTS', instruments: ['ETH', 'DOGE'], content: 'x' },
          'invalid_memory_target',
          422,
        ],
        ['validation', { type: 'note', scope: 'AGENT', content: '' }, 'validation_error', 400],
        [
          'malformed id',
          {
            type: 'note',
            scope: 'AGENT',
            content: 'x',
            links: [{ target_memory_id: 'not-a-uuid', link_type: 'supports' }],
          },
          'validation_error',
          400,
        ],
        [
          'reserved type',
          { type: 'trading_decision', scope: 'AGENT', content: 'x' },
          'reserved_memory_type',
          422,
        ],
        [
          'idempotency',
          { type: 'note', scope: 'AGENT', content: 'second', idempotency_key: key },
          'idempotency_conflict',
          409,
        ],
      ];
      for (const [name, input, code, status] of cases) {
        const result = await callTool(await as('analysis'), 'write_memory', input);
        const rest = await restWrite(base, tokens.analysis, input);
        expect(rest.status, name).toBe(status);
        expect(result.isError, name).toBe(true);
        expect(result.structuredContent, name).toEqual(rest.body);
        expect(result.structuredContent!.code, name).toBe(code);
      }
      const link = await callTool(await as('analysis'), 'write_memory', cases[0]![1]);
      expect(link.structuredContent).toMatchObject({ link_index: 1 });
      const text = (link.content as { text: string }[])[0]!.text;
      expect(text).toContain('get_trading_context');
      expect(text).toContain('links[1]');
      expect(text).toContain('retry once');
      const target = await callTool(await as('analysis'), 'write_memory', cases[1]![1]);
      expect(target.structuredContent).toMatchObject({ instrument_index: 1 });
    });

    it('M7: write_memory with metadata nested 10,000 levels answers the REST validation body, no fault', async () => {
      const fields = `"type":"note","scope":"AGENT","content":"deep over ${transport}","metadata":${nestedJsonText(10_000)}`;
      const rest = await fetch(`${base}/api/v1/memories`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.analysis}` },
        body: `{${fields}}`,
      });
      const restBody = (await rest.json()) as Record<string, unknown>;
      expect(rest.status).toBe(400);
      expect(restBody).toMatchObject({ code: 'validation_error', field: 'metadata' });
      const serviceOutput = svc.service.output().length;
      const { answer, stderr } = await rawMcpExchange(
        transport,
        base,
        tokens.analysis,
        `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"write_memory","arguments":{${fields}}}}`,
        7,
      );
      expect(answer).toMatchObject({ id: 7, result: { isError: true, structuredContent: restBody } });
      expect(stderr).toBe('');
      expect(svc.service.output().slice(serviceOutput)).not.toContain('"level":50');
    });

    it('S1/W4: a foreign id answers exactly like an unknown one (read and link)', async () => {
      const operator = await as('operator');
      expect(await callTool(operator, 'get_memory', { id: foreignResearch })).toEqual(
        await callTool(operator, 'get_memory', { id: randomUUID() }),
      );
      expect(await callTool(operator, 'get_decision_audit', { decision_id: foreignResearch })).toEqual(
        await callTool(operator, 'get_decision_audit', { decision_id: randomUUID() }),
      );
      const linkTo = (id: string) => ({
        type: 'note',
        scope: 'AGENT',
        content: 'x',
        links: [{ target_memory_id: id, link_type: 'supports' }],
      });
      const foreign = await callTool(await as('analysis'), 'write_memory', linkTo(foreignResearch));
      expect(foreign).toEqual(await callTool(await as('analysis'), 'write_memory', linkTo(randomUUID())));
      expect(JSON.stringify(foreign)).not.toContain(foreignResearch);
    });

    it('MCP: a Trading run is refused list_memories exactly like an unknown tool', async () => {
      const trading = await as('trading');
      const refusal = async (name: string) => {
        const error = await callTool(trading, name, {}).then(
          () => null,
          (caught: unknown) => caught,
        );
        expect(error, name).toBeInstanceOf(McpError);
        return {
          code: (error as McpError).code,
          message: (error as McpError).message.replace(name, '<tool>'),
        };
      };
      expect(await refusal('list_memories')).toEqual(await refusal('no_such_tool'));
      expect(await refusal('list_memories')).toMatchObject({ code: -32602 });
      expect(await refusal('get_decision_audit')).toEqual(await refusal('no_such_tool'));
      // Operators see no write tool, and calling it is the same refusal.
      await expect(
        callTool(await as('operator'), 'write_memory', { type: 'note', scope: 'AGENT', content: 'x' }),
      ).rejects.toThrow('Tool write_memory not found');
    });

    it('MCP/W9: a finished run is refused (UNAUTHENTICATED) and writes nothing', async () => {
      const run = await startRunAt(base, a.producers.adhoc);
      const client = await connectMcp(transport, base, run.token);
      await client.listTools(); // the session works while the run runs
      await finishRunAt(base, run.runId);
      const content = `after finish ${randomUUID()}`;
      expectUnauthenticated(
        await callTool(client, 'write_memory', { type: 'note', scope: 'AGENT', content }).catch(
          (e: unknown) => e,
        ),
      );
      await client.close();
      const { memories } = await gqlRequest<any>(
        base,
        tokens.operator,
        '{ memories(first: 20) { edges { node { content } } } }',
      );
      expect(memories.edges.map((edge: any) => edge.node.content)).not.toContain(content);
      // A new session with that token gets nowhere either: refused at connect (HTTP) or at the first request (stdio).
      let fresh: Awaited<ReturnType<typeof connectMcp>> | null = null;
      const refused = await connectMcp(transport, base, run.token)
        .then((connected) => (fresh = connected).listTools())
        .catch((e: unknown) => e);
      expectUnauthenticated(refused);
      await (fresh as Awaited<ReturnType<typeof connectMcp>> | null)?.close();
    });

    it('MCP/L1: a write through MCP reaches a GraphQL subscriber', async () => {
      const { memories } = await gqlRequest<any>(
        base,
        tokens.operator,
        '{ memories(first: 1) { edges { cursor } } }',
      );
      const socket = wsClient(base, tokens.operator);
      const subscription = subscribeWs(socket, { after: memories.edges[0].cursor });
      const written = await callOk(await as('analysis'), 'write_memory', {
        type: 'live_note',
        scope: 'AGENT',
        content: `live over ${transport}`,
      });
      const deadline = Date.now() + 5000;
      while (
        !subscription.edges.some((edge) => edge.node.id === written.memory_id) &&
        Date.now() < deadline
      ) {
        await subscription
          .waitFor(subscription.edges.length + 1, deadline - Date.now())
          .catch(() => undefined);
      }
      expect(subscription.edges.map((edge) => edge.node.id)).toContain(written.memory_id);
      await subscription.stop();
      await socket.dispose();
    });
  });
}

/** The JSON blocks of one section of a document (from its heading to the next one). */
async function jsonBlocks(file: string, heading: string): Promise<string[]> {
  const text = await readFile(path.join(repoRoot, file), 'utf8');
  const section = text.slice(text.indexOf(heading));
  return [...section.slice(0, section.indexOf('\n#', 4)).matchAll(/```json\n([\s\S]*?)```/g)].map(
    (match) => match[1]!,
  );
}

/**
 * The client configurations as documented — HTTP and stdio in docs/mcp.md's "Connecting an agent" —
 * pasted with this service's address, a real token and this clone.
 */
async function readmeConfigs(token: string) {
  const blocks = await jsonBlocks('docs/mcp.md', '### Connecting an agent');
  const paste = (block: string | undefined) =>
    JSON.parse(
      block!
        .replaceAll('/path/to/memory-service', repoRoot)
        .replaceAll('http://127.0.0.1:4000', base)
        .replaceAll('<run or operator token>', token),
    ).mcpServers.memory;
  return {
    stdio: paste(blocks.find((block) => block.includes('"command"'))),
    http: paste(blocks.find((block) => block.includes('"url"'))),
  };
}

describe('MCP transports', { timeout: 120_000 }, () => {
  it('MCP: the documented configurations work as pasted — stdio through npx from another directory, and HTTP', async () => {
    const { stdio, http } = await readmeConfigs(tokens.trading);
    expect(stdio.command).toBe('npx');
    const transports = [
      new StdioClientTransport({
        command: stdio.command,
        args: stdio.args,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.homedir(), ...stdio.env },
        cwd: os.tmpdir(),
        stderr: 'ignore',
      }),
      new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers: http.headers } }),
    ];
    for (const transport of transports) {
      const client = new Client({ name: 'readme', version: '1.0.0' });
      await client.connect(transport);
      expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(
        [...VISIBLE.trading!].sort(),
      );
      const context = await callOk(client, 'get_trading_context', { instrument: 'ETH' });
      expect(context.agent_id).toBe(a.agentId);
      await client.close();
    }
  });

  it('MCP: the stdio bin refuses to start without MEMORY_TOKEN (exit 2) and reports an unreachable service', async () => {
    const bin = path.join(repoRoot, 'bin/memory-mcp.js');
    const started = spawnSync(process.execPath, [bin], {
      env: { PATH: process.env.PATH ?? '', MEMORY_URL: base },
      input: '',
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(started.status).toBe(2);
    expect(started.stderr).toContain('MEMORY_TOKEN is required');
    const client = await connectMcp('stdio', 'http://127.0.0.1:1', tokens.trading);
    const error = await client.listTools().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).data).toEqual({ code: 'INTERNAL_SERVER_ERROR' });
    expect((error as McpError).message).toContain('Cannot reach the memory service');
    await client.close();
  });

  it('MCP: the admin token sees no tool and a tool call is refused like an unknown tool', async () => {
    for (const transport of TRANSPORTS satisfies readonly TransportName[]) {
      const admin = await clients.get(transport, MCP_ADMIN);
      expect((await admin.listTools()).tools).toEqual([]);
      await expect(callTool(admin, 'get_memory', { id: research })).rejects.toThrow(
        'Tool get_memory not found',
      );
    }
  });
});

/** M9: tools/list's size in characters (its JSON), per caller kind and transport, for the README check. */
const LIST_SIZES = new Map<string, number>();
const SIZED = { analysis: 'Analysis', trading: 'Trading', review: 'Review', operator: 'operator' } as const;
const text = (result: { content?: unknown }) =>
  (result.content as { type: string; text: string }[]).map((c) => c.text);

for (const transport of TRANSPORTS) {
  const as = (who: keyof typeof tokens) => clients.get(transport, tokens[who]);

  describe(`M9–M12 over ${transport}`, { timeout: 60_000 }, () => {
    it('M9: tools/list is at most 8,000 characters for every run kind and operators; each result is sent once', async () => {
      for (const [who, label] of Object.entries(SIZED)) {
        const listed = await (await as(who as keyof typeof tokens)).listTools();
        const size = JSON.stringify(listed).length;
        console.log(`M9: tools/list over ${transport} for ${label}: ${size} characters`);
        expect(size, label).toBeLessThanOrEqual(8_000);
        const serialized = JSON.stringify(listed);
        // One UUID spelling: `format: uuid`, never a pattern beside it.
        expect(serialized).not.toContain('pattern');
        LIST_SIZES.set(`${transport} ${label}`, size);
      }
      const result = await callTool(await as('operator'), 'get_trading_context', { instrument: 'ETH' });
      expect(result.content).toHaveLength(1);
      const [summary] = text(result);
      expect(summary).not.toContain('\n');
      expect(summary!.length).toBeLessThan(200);
      expect(summary).toMatch(/^ETH: \d+ FRESH of \d+ entries/);
      expect(summary).not.toContain(JSON.stringify(result.structuredContent).slice(0, 40));
    });

    it('M10: unknown argument keys are refused naming the nearest known one; missing keys are "missing"', async () => {
      const camel = await callTool(await as('trading'), 'write_memory', {
        type: 'note',
        scope: 'AGENT',
        content: `camel over ${transport}`,
        idempotencyKey: 'k1',
      });
      expect(camel).toMatchObject({
        isError: true,
        structuredContent: { code: 'validation_error', field: 'idempotencyKey' },
      });
      expect(camel.structuredContent!.error).toContain('did you mean idempotency_key?');
      expect(text(camel)[0]).toContain('retry once');
      const missing = await callTool(await as('trading'), 'write_memory', {
        type: 'note',
        scope: 'AGENT',
        content: 'x',
        links: [{ link_type: 'considered' }],
      });
      expect(missing.structuredContent).toEqual({
        error: 'links[0].target_memory_id is missing',
        code: 'validation_error',
        field: 'links[0].target_memory_id',
      });
      const read = await callTool(await as('operator'), 'get_trading_context', { Instrument: 'ETH' });
      expect(read.structuredContent).toMatchObject({ code: 'validation_error', field: 'Instrument' });
      expect(read.structuredContent!.error).toContain('did you mean instrument?');
      const none = await callTool(await as('operator'), 'get_memory', {});
      expect(none.structuredContent).toMatchObject({ error: 'id is missing', field: 'id' });
      // Nothing was stored by the refused writes.
      const { memories } = await callOk(await as('operator'), 'list_memories', {
        text: `camel over ${transport}`,
      });
      expect(memories).toEqual([]);
    });

    it('M11: list_instruments, unknown_instrument for names not in the catalog, selected: false for unselected ones', async () => {
      const listed = await callOk(await as('trading'), 'list_instruments', {});
      expect(listed.selected).toEqual(['BTC', 'ETH', 'SOL']);
      expect(listed.catalog).toEqual(expect.arrayContaining(['BTC', 'DOGE', 'ETH', 'SOL']));
      for (const instrument of ['btc', 'PEPE']) {
        const unknown = await callTool(await as('trading'), 'get_trading_context', { instrument });
        expect(unknown).toMatchObject({
          isError: true,
          structuredContent: { code: 'unknown_instrument', selected: ['BTC', 'ETH', 'SOL'] },
        });
        expect(text(unknown)[0]).toContain('BTC, ETH, SOL');
      }
      const unselected = await callOk(await as('trading'), 'get_trading_context', { instrument: 'DOGE' });
      expect(unselected).toMatchObject({ instrument: 'DOGE', selected: false });
      const target = await callTool(await as('analysis'), 'write_memory', {
        type: 'note',
        scope: 'INSTRUMENTS',
        instruments: ['DOGE'],
        content: 'x',
      });
      expect(target.structuredContent).toMatchObject({
        code: 'invalid_memory_target',
        instrument_index: 0,
        selected: ['BTC', 'ETH', 'SOL'],
      });
    });

    it('M12: write_memory says when a record never expires; valid_for_seconds gives it a deadline', async () => {
      const forever = await callTool(await as('trading'), 'write_memory', {
        type: 'trading_decision',
        scope: 'INSTRUMENTS',
        instruments: ['SOL'],
        content: `no validity over ${transport}`,
      });
      expect(forever.structuredContent).toMatchObject({ expires_at: null, never_expires: true });
      expect(text(forever)[0]).toContain('never expires');
      const bounded = await callOk(await as('trading'), 'write_memory', {
        type: 'trading_decision',
        scope: 'INSTRUMENTS',
        instruments: ['SOL'],
        content: `valid 15 minutes over ${transport}`,
        metadata: { valid_for_seconds: 900 },
      });
      expect(bounded.never_expires).toBe(false);
      expect(Date.parse(bounded.expires_at) - Date.parse(bounded.memory.created_at)).toBe(900_000);
      const { tools } = await (await as('trading')).listTools();
      expect(tools.find((tool) => tool.name === 'write_memory')!.description).toContain('NEVER expires');
    });

    it('M9/W4: a scripted agent session — tools, context, research, a decision with a bad link repaired once', async () => {
      // An Analysis run publishes research the way a model would: the tool list first.
      const analyst = await as('analysis');
      expect((await analyst.listTools()).tools.map((tool) => tool.name)).toContain('write_memory');
      const note = await callOk(analyst, 'write_memory', {
        type: 'ema_handoff',
        scope: 'INSTRUMENTS',
        instruments: ['BTC'],
        content: `BTC 1h: fast EMA crossed above slow (${transport})`,
        timeframe: '1h',
      });
      // The Trading run: its instruments, then the context it decides on.
      const trader = await as('trading');
      const { selected } = await callOk(trader, 'list_instruments', {});
      expect(selected).toContain('BTC');
      const context = await callOk(trader, 'get_trading_context', { instrument: 'BTC' });
      const fresh = context.entries.filter((entry: any) => entry.status === 'FRESH');
      expect(fresh.map((entry: any) => entry.memory_id)).toContain(note.memory_id);
      // A model that mangles one id: the decision is refused, naming the link and the repair.
      const mangled = `${note.memory_id.slice(0, -4)}beef`;
      const decision = {
        type: 'trading_decision',
        scope: 'INSTRUMENTS',
        instruments: ['BTC'],
        content: 'long BTC 0.1, stop 2 %',
        metadata: { valid_for_seconds: 1800, side: 'long' },
        idempotency_key: `session-${transport}-${randomUUID()}`,
        links: [
          ...fresh
            .slice(1)
            .map((entry: any) => ({ target_memory_id: entry.memory_id, link_type: 'considered' })),
          { target_memory_id: mangled, link_type: 'considered' },
        ],
      };
      const refused = await callTool(trader, 'write_memory', decision);
      const badIndex = decision.links.length - 1;
      expect(refused.structuredContent).toMatchObject({ code: 'invalid_memory_link', link_index: badIndex });
      const advice = text(refused)[0]!;
      expect(advice).toContain('retry once');
      expect(advice).toContain(`links[${badIndex}]`);
      // The repair the advice asks for: refetch the context, replace only that link, retry once.
      const again = await callOk(trader, 'get_trading_context', { instrument: 'BTC' });
      const copied = again.entries.find((entry: any) => entry.memory_id.startsWith(mangled.slice(0, 8)));
      const repaired = {
        ...decision,
        links: decision.links.map((link, index) =>
          index === badIndex ? { ...link, target_memory_id: copied.memory_id } : link,
        ),
      };
      const written = await callOk(trader, 'write_memory', repaired);
      expect(written).toMatchObject({ never_expires: false, memory: { type: 'trading_decision' } });
      expect(written.memory.links.map((link: any) => link.target_memory_id)).toContain(note.memory_id);
      const audit = await callOk(await as('review'), 'get_decision_audit', {
        decision_id: written.memory_id,
      });
      expect(audit.linked.map((memory: any) => memory.id)).toContain(note.memory_id);
    });
  });
}

describe('M9: the README shows the measured tool-list sizes', () => {
  it('M9: the README and docs/mcp.md state exactly the sizes measured on both transports', async () => {
    expect(LIST_SIZES.size).toBe(TRANSPORTS.length * Object.keys(SIZED).length);
    const documents = [
      await readFile(path.join(repoRoot, 'README.md'), 'utf8'),
      await readFile(path.join(repoRoot, 'docs/mcp.md'), 'utf8'),
    ];
    for (const label of Object.values(SIZED)) {
      const sizes = TRANSPORTS.map((transport) => LIST_SIZES.get(`${transport} ${label}`));
      expect(new Set(sizes).size, label).toBe(1); // the same tools on both transports
      const shown = sizes[0]!.toLocaleString('en-US');
      for (const document of documents) {
        const row = /\|\s*tools\/list characters\s*\|(.*)\|/.exec(document)?.[1];
        const header = /\|\s*run kind\s*\|(.*)\|/.exec(document)?.[1];
        expect(row, 'the sizes row').toBeDefined();
        const columns = header!.split('|').map((cell) => cell.trim());
        const cells = row!.split('|').map((cell) => cell.trim());
        expect(cells[columns.indexOf(label)], label).toBe(shown);
      }
    }
  });
});

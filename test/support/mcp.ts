// MCP test support: a real service process (PGlite in a temp folder, or PostgreSQL), a world of two
// agents built through the admin API, and the SDK's own Client over Streamable HTTP or stdio.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { testDatabaseUrl } from './env.js';
import {
  createPostgresDatabase,
  programEntry,
  repoRoot,
  startServiceProcess,
  type ServiceProcess,
} from './processes.js';
import { gqlOverHttp as gqlRequest } from './processes.js';

export { repoRoot };
export const MCP_ADMIN = 'adm_mcp_test_token_0123456789abcdef';

/**
 * Node's arguments for a `memory-mcp` process: the bin (which registers tsx and imports
 * src/memory-mcp.ts), or the same module from the test run's build. The documented `npx memory-mcp`
 * and the bin's refusals (test/e2e/mcp.test.ts "MCP transports") always start the bin itself.
 */
const mcpEntry = () => programEntry('memory-mcp', [path.join(repoRoot, 'bin/memory-mcp.js')]);

/** The service as production runs it, on the database of this test run (TEST_DATABASE_URL ⇒ PostgreSQL). */
export async function startMcpService(): Promise<{ service: ServiceProcess; stop(): Promise<void> }> {
  const env = { ADMIN_TOKEN: MCP_ADMIN, DEMO: '0', LOG_LEVEL: 'warn' };
  if (testDatabaseUrl) {
    const database = await createPostgresDatabase();
    const service = await startServiceProcess({ ...env, DATABASE_URL: database.url });
    return { service, stop: async () => void (await service.stop(), await database.drop()) };
  }
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'memory-mcp-'));
  const service = await startServiceProcess({ ...env, DATABASE_URL: '', DATA_DIR: dataDir });
  return { service, stop: async () => void (await service.stop(), await rm(dataDir, { recursive: true })) };
}

/** A JSON-RPC message POSTed to /mcp as a Streamable HTTP client sends it (the transport is stateless). */
export function mcpRequest(token: string | null, message: Record<string, unknown>): RequestInit {
  return {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, params: {}, ...message }),
  };
}

/** POST /api/v1/memories, for comparing the REST body with a tool's structured content. */
export async function restWrite(base: string, token: string, body: unknown) {
  const response = await fetch(`${base}/api/v1/memories`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

export interface McpAgent {
  agentId: string;
  operatorToken: string;
  producers: Record<'analysis' | 'adhoc' | 'trading' | 'review', string>;
}

/** An agent selecting BTC, ETH and SOL with one producer of each kind (analysis is scheduled 5m). */
export async function createMcpAgent(base: string, name: string): Promise<McpAgent> {
  for (const id of ['BTC', 'ETH', 'SOL', 'DOGE']) {
    await gqlRequest<any>(
      base,
      MCP_ADMIN,
      'mutation($id: String!) { upsertInstrument(input: { id: $id }) { id } }',
      {
        id,
      },
    );
  }
  const { createAgent } = await gqlRequest<any>(
    base,
    MCP_ADMIN,
    'mutation($n: String!) { createAgent(input: { name: $n }) { id } }',
    {
      n: `${name}-${randomUUID().slice(0, 8)}`,
    },
  );
  const agentId = createAgent.id as string;
  await gqlRequest<any>(
    base,
    MCP_ADMIN,
    'mutation($a: UUID!) { setAgentInstruments(agentId: $a, instrumentIds: ["BTC", "ETH", "SOL"]) { id } }',
    {
      a: agentId,
    },
  );
  const producers = {} as McpAgent['producers'];
  const wanted = {
    analysis: ['ANALYSIS', '5m'],
    adhoc: ['ANALYSIS', null],
    trading: ['TRADING', null],
    review: ['REVIEW', null],
  } as const;
  for (const [key, [kind, schedule]] of Object.entries(wanted)) {
    const { createProducer } = await gqlRequest<any>(
      base,
      MCP_ADMIN,
      'mutation($i: CreateProducerInput!) { createProducer(input: $i) { id } }',
      {
        i: { agentId, kind, name: key, schedule },
      },
    );
    producers[key as keyof McpAgent['producers']] = createProducer.id;
  }
  const { createOperatorToken } = await gqlRequest<any>(
    base,
    MCP_ADMIN,
    'mutation($a: UUID!) { createOperatorToken(agentId: $a) { token } }',
    {
      a: agentId,
    },
  );
  return { agentId, operatorToken: createOperatorToken.token, producers };
}

export async function startRunAt(base: string, producerId: string, evidenceBoundary: string | null = null) {
  const { startRun } = await gqlRequest<any>(
    base,
    MCP_ADMIN,
    'mutation($i: StartRunInput!) { startRun(input: $i) { token run { id } } }',
    {
      i: { producerId, evidenceBoundary },
    },
  );
  return { runId: startRun.run.id as string, token: startRun.token as string };
}

export async function finishRunAt(base: string, runId: string): Promise<void> {
  await gqlRequest<any>(
    base,
    MCP_ADMIN,
    'mutation($r: UUID!) { finishRun(runId: $r, status: SUCCEEDED) { id } }',
    {
      r: runId,
    },
  );
}

export type TransportName = 'Streamable HTTP' | 'stdio';
export const TRANSPORTS: readonly TransportName[] = ['Streamable HTTP', 'stdio'];

/** The SDK's Client connected as `token`: to /mcp, or to a `memory-mcp` process (`mcpEntry`). */
export async function connectMcp(
  transport: TransportName,
  base: string,
  token: string | null,
): Promise<Client> {
  const client = new Client({ name: 'memory-service-tests', version: '1.0.0' });
  await client.connect(
    transport === 'stdio'
      ? new StdioClientTransport({
          command: process.execPath,
          args: mcpEntry(),
          env: { PATH: process.env.PATH ?? '', MEMORY_URL: base, MEMORY_TOKEN: token ?? '' },
          stderr: 'pipe',
        })
      : new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
          requestInit: { headers: token ? { authorization: `Bearer ${token}` } : {} },
        }),
  );
  return client;
}

/** One client per (transport, token) for a whole file: tools/list runs once so results are validated. */
export class McpClients {
  private clients = new Map<string, Promise<Client>>();
  constructor(private base: () => string) {}

  get(transport: TransportName, token: string): Promise<Client> {
    const key = `${transport} ${token}`;
    let client = this.clients.get(key);
    if (!client) {
      client = connectMcp(transport, this.base(), token).then(async (connected) => {
        // The client validates structured content only against the outputSchema of listed tools.
        await connected.listTools();
        return connected;
      });
      this.clients.set(key, client);
    }
    return client;
  }

  async closeAll(): Promise<void> {
    for (const client of this.clients.values()) await (await client.catch(() => null))?.close();
    this.clients.clear();
  }
}

export async function callTool(client: Client, name: string, args: Record<string, unknown>) {
  return (await client.callTool({ name, arguments: args })) as CallToolResult & {
    structuredContent?: Record<string, any>;
  };
}

/** A call that must succeed: its structured content. */
export async function callOk(client: Client, name: string, args: Record<string, unknown>) {
  const result = await callTool(client, name, args);
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent!;
}

/** `{"level":{"level":…{}…}}`, `depth` objects deep, as text: the test's own JSON.stringify would overflow. */
export const nestedJsonText = (depth: number) => `${'{"level":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}`;

/**
 * One JSON-RPC message sent as raw text (no client serialises it): POSTed to /mcp, or written to a
 * fresh `memory-mcp` process; resolves with the answer whose id is `id` and what the bin wrote to stderr.
 */
export async function rawMcpExchange(
  transport: TransportName,
  base: string,
  token: string,
  text: string,
  id: number,
): Promise<{ answer: Record<string, any>; stderr: string }> {
  if (transport === 'Streamable HTTP') {
    const response = await fetch(`${base}/mcp`, { ...mcpRequest(token, {}), body: text });
    return { answer: (await response.json()) as Record<string, any>, stderr: '' };
  }
  const child = spawn(process.execPath, mcpEntry(), {
    env: { PATH: process.env.PATH ?? '', MEMORY_URL: base, MEMORY_TOKEN: token },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const answer = await new Promise<Record<string, any>>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer ${id} from memory-mcp:\n${stderr}`)), 30_000);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      for (const line of stdout.split('\n').slice(0, -1)) {
        const message = JSON.parse(line) as Record<string, any>;
        if (message.id === id) {
          clearTimeout(timer);
          resolve(message);
        }
      }
    });
    child.stdin.write(`${text}\n`);
  });
  child.stdin.end();
  await exited;
  return { answer, stderr };
}

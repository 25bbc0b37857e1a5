// The same tools over stdio, for agent runtimes that launch tools as processes: the server talks to
// the service at `memoryUrl` with `memoryToken` (the `memory-mcp` program reads them, src/memory-mcp.ts).
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { httpServiceFetch, serviceExecutor } from './executor.js';
import { createMcpServer } from './mcp-server.js';

export interface McpStdioSettings {
  /** The service's address, e.g. http://127.0.0.1:4000. */
  memoryUrl: string;
  /** The run or operator bearer token the agent runtime was given. */
  memoryToken: string;
}

/** Serves MCP on stdin/stdout until stdin closes; stdout carries only the protocol, faults go to stderr. */
export async function serveStdio(settings: McpStdioSettings): Promise<void> {
  const service = serviceExecutor(httpServiceFetch(settings.memoryUrl), `Bearer ${settings.memoryToken}`);
  const server = createMcpServer(service, {
    // Only the error's name: its message could quote a request (S4: no content in logs).
    onFault: (error) => process.stderr.write(`memory-mcp: unexpected ${(error as Error)?.name ?? 'error'}\n`),
  });
  await server.connect(new StdioServerTransport());
}

// The `memory-mcp` bin: the same tools over stdio for agent runtimes that launch tools as processes,
// talking to the service at MEMORY_URL with MEMORY_TOKEN. stdout is the protocol; logs go to stderr.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ConfigError, loadMcpStdioConfig, type McpStdioConfig } from '../config.js';
import { httpServiceFetch, serviceExecutor } from './executor.js';
import { createMcpServer } from './mcp-server.js';

async function main(): Promise<void> {
  let config: McpStdioConfig;
  try {
    config = loadMcpStdioConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`memory-mcp: ${error.message}\n`);
    process.exit(2);
  }
  const service = serviceExecutor(httpServiceFetch(config.memoryUrl), `Bearer ${config.memoryToken}`);
  const server = createMcpServer(service, {
    // Only the error's name: its message could quote a request (S4: no content in logs).
    onFault: (error) => process.stderr.write(`memory-mcp: unexpected ${(error as Error)?.name ?? 'error'}\n`),
  });
  await server.connect(new StdioServerTransport());
}

await main();

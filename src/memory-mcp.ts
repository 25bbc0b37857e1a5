// The `memory-mcp` program (bin/memory-mcp.js): reads MEMORY_URL and MEMORY_TOKEN once and serves the
// MCP tools over stdio; a configuration error exits with code 2, like `npm start`.
import { ConfigError, loadMcpStdioConfig } from './config.js';
import { serveStdio, type McpStdioSettings } from './mcp/stdio.js';

function loadSettingsOrExit(): McpStdioSettings {
  try {
    return loadMcpStdioConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`memory-mcp: ${error.message}\n`);
    process.exit(2);
  }
}

await serveStdio(loadSettingsOrExit());

#!/usr/bin/env node
// `npx memory-mcp`: the stdio MCP server (src/mcp/stdio.ts), run through tsx like `npm start`.
import { register } from 'tsx/esm/api';

register();
await import('../src/mcp/stdio.ts');

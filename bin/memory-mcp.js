#!/usr/bin/env node
// `npx memory-mcp`: the stdio MCP server (src/memory-mcp.ts), run through tsx like `npm start`.
import { register } from 'tsx/esm/api';

register();
await import('../src/memory-mcp.ts');

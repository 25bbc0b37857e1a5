// One MCP server over a ServiceExecutor: `tools/list` shows the caller's tools only, `tools/call`
// refuses the rest like unknown tools, and results carry structured content in both outcomes.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  type CallToolResult,
  type Tool as ListedTool,
} from '@modelcontextprotocol/sdk/types.js';
import { ServiceAnswerError, type ServiceExecutor } from './executor.js';
import { adviceFor, DESCRIPTIONS, SERVER_INSTRUCTIONS } from './protocol.js';
import { checkArgumentKeys } from '../domain/argument-keys.js';
import { argumentShapeOf, inputSchemaOf, outputSchemaOf, type ToolFailure } from './shapes.js';
import { audienceOf, toolsFor } from './audience.js';
import type { Role } from '../auth/access-table.js';
import type { Tool } from './tool.js';
import { TOOLS } from './tools.js';

const MCP_SERVER_INFO = { name: 'memory-service', version: '0.1.0' };

/**
 * JSON-RPC codes for the errors that are not a tool result (auth, internal); `data.code` carries
 * the GraphQL code itself (UNAUTHENTICATED, FORBIDDEN, INTERNAL_SERVER_ERROR).
 */
const RPC_CODES: Record<string, number> = { UNAUTHENTICATED: -32041, FORBIDDEN: -32043 };

/** S7, S8: GraphQL codes of a read's cost, answered as an isError result with the REST body's code. */
const COST_CODES: Record<string, string> = { QUERY_TIMEOUT: 'query_timeout', RATE_LIMITED: 'rate_limited' };

/** An error answered as a JSON-RPC error with this message as is (the SDK's McpError prefixes its own). */
class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: { code: string },
  ) {
    super(message);
  }
}

/** The listing of every tool, built once: the JSON Schemas are derived from the zod definitions. */
const LISTED = new Map<string, ListedTool>(
  TOOLS.map((tool) => [
    tool.name,
    {
      name: tool.name,
      title: tool.title,
      description: DESCRIPTIONS[tool.name],
      inputSchema: inputSchemaOf(tool.input) as ListedTool['inputSchema'],
      ...(tool.listsOutput === false
        ? {}
        : { outputSchema: outputSchemaOf(tool.output) as ListedTool['outputSchema'] }),
      // M9: only what differs from the defaults (a read destroys nothing; a write only adds).
      annotations: tool.readOnly ? { readOnlyHint: true } : { destructiveHint: false },
    },
  ]),
);

const ARGUMENT_SHAPES = new Map(TOOLS.map((tool) => [tool.name, argumentShapeOf(tool.input)]));

export function createMcpServer(service: ServiceExecutor, options: { onFault?(error: unknown): void } = {}) {
  const server = new Server(MCP_SERVER_INFO, {
    capabilities: { tools: {} },
    instructions: SERVER_INSTRUCTIONS,
  });
  let audience: Promise<Role | null> | undefined;
  // Once per server: per request on /mcp (stateless), per session on stdio; a failed lookup is retried.
  const visibleTools = async () =>
    toolsFor(
      await (audience ??= audienceOf(service).catch((error: unknown) => {
        audience = undefined;
        throw error;
      })),
    );
  const guarded = <T>(work: () => Promise<T>) => answerErrors(work, options.onFault);

  server.setRequestHandler(ListToolsRequestSchema, () =>
    guarded(async () => ({ tools: (await visibleTools()).map((tool) => LISTED.get(tool.name)!) })),
  );
  server.setRequestHandler(CallToolRequestSchema, (request) =>
    guarded(async () => {
      const { name, arguments: args } = request.params;
      const tool = (await visibleTools()).find((visible) => visible.name === name);
      // A tool this caller may not use is refused exactly like one that does not exist.
      if (!tool) throw new RpcError(ErrorCode.InvalidParams, `Tool ${name} not found`);
      return callTool(tool, args ?? {}, service);
    }),
  );
  return server;
}

/** Service errors become JSON-RPC errors with the GraphQL code; anything else is generic (W5). */
async function answerErrors<T>(work: () => Promise<T>, onFault?: (error: unknown) => void): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof RpcError) throw error;
    // The service's own messages are already safe to show (its faults are masked there).
    if (error instanceof ServiceAnswerError) {
      throw new RpcError(RPC_CODES[error.code] ?? ErrorCode.InternalError, error.message, {
        code: error.code,
      });
    }
    onFault?.(error);
    throw new RpcError(ErrorCode.InternalError, 'Unexpected error.', { code: 'INTERNAL_SERVER_ERROR' });
  }
}

async function callTool(
  tool: Tool,
  rawArgs: Record<string, unknown>,
  service: ServiceExecutor,
): Promise<CallToolResult> {
  if (!tool.serviceValidates) {
    // M10: an unknown key is refused, not dropped; a missing one is said to be missing.
    const keyProblem = checkArgumentKeys(rawArgs, ARGUMENT_SHAPES.get(tool.name)!);
    if (keyProblem)
      return failed({ error: keyProblem.message, code: 'validation_error', field: keyProblem.field });
  }
  try {
    const outcome = await tool.call(rawArgs, service);
    if (!outcome.ok) return failed(outcome.failure);
    // M9: the result once, as structured content; the text is a one-line summary of it.
    return {
      content: [{ type: 'text', text: outcome.summary }],
      structuredContent: outcome.value,
    };
  } catch (error) {
    // An argument the API refused (a bad time zone, a foreign cursor): the agent can fix it.
    if (error instanceof ServiceAnswerError && error.code === 'BAD_USER_INPUT') {
      return failed({ error: error.message, code: 'validation_error', ...argumentName(error.field) });
    }
    // S7, S8: a read bounded or refused for its cost is the agent's to narrow or to retry later.
    const costCode = error instanceof ServiceAnswerError ? COST_CODES[error.code] : undefined;
    if (error instanceof ServiceAnswerError && costCode)
      return failed({ error: error.message, code: costCode });
    throw error;
  }
}

/** A typed failure: isError, the failure as structured content, and what to do next as text. */
function failed(failure: ToolFailure): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: `${failure.code}: ${failure.error}\n${adviceFor(failure)}` }],
    structuredContent: failure,
  };
}

/** The first argument zod refused, named like the REST body names fields (`types[0]`, `window`). */
/** An API argument path (`window.timeZone`, `window.rolling`, `first`) in the tools' spelling. */
function argumentName(field: string | undefined): { field?: string } {
  if (!field) return {};
  const last = field.replace(/^(filter\.)?window\./, '');
  return { field: last === 'rolling' ? 'window' : last.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) };
}

// Streamable HTTP at /mcp. Stateless: every POST gets a new MCP server and transport, so any instance
// behind a load balancer answers any request and nothing is kept between them. The S3 gate resolved
// the caller (and refused anonymous requests) before this runs; tools reach the service in-process.
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Plugin } from 'graphql-yoga';
import type { RequestCaller } from '../auth/request-caller.js';
import { unauthenticated } from '../auth/errors.js';
import { logError } from '../log-policy.js';
import { requestLogContext, type Logger } from '../logger.js';
import { BodyTooLarge, MAX_REST_BODY_BYTES, readCapped } from '../http/request-body.js';
import type { ServingContext } from '../http/auth-gate.js';
import { serviceExecutor } from './executor.js';
import { createMcpServer } from './mcp-server.js';

export const MCP_PATH = '/mcp';

interface McpRouteDeps {
  /**
   * The service's own request handling (`yoga.fetch`): tools run the API's operations as the caller —
   * the caller of this MCP request, not resolved again.
   */
  fetchService(path: string, init: RequestInit, requestCaller: RequestCaller): Promise<Response>;
  /** The caller the auth gate resolved for this request. */
  callerOf(request: Request, serverContext?: ServingContext): Promise<RequestCaller>;
  logger: Logger;
}

function jsonRpcError(status: number, code: number, message: string, headers: Record<string, string> = {}) {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

/**
 * The body as one JSON-RPC message, or the answer refusing it. M8: MCP 2025-06-18 removed batching
 * and the SDK's transport still runs every message of an array, so an array is refused whole here.
 */
async function readSingleMessage(request: Request): Promise<{ message: unknown } | { refusal: Response }> {
  let message: unknown;
  try {
    message = JSON.parse(await readCapped(request, MAX_REST_BODY_BYTES));
  } catch (error) {
    if (error instanceof BodyTooLarge) {
      const limit = `Payload too large: the body must be at most ${MAX_REST_BODY_BYTES} bytes`;
      return { refusal: jsonRpcError(413, -32000, limit) };
    }
    return { refusal: jsonRpcError(400, -32700, 'Parse error: Invalid JSON') };
  }
  if (Array.isArray(message)) {
    const batch = 'Invalid Request: JSON-RPC batches are not supported; send one message per POST';
    return { refusal: jsonRpcError(400, -32600, batch) };
  }
  return { message };
}

export function mcpRoute(deps: McpRouteDeps): Plugin {
  return {
    async onRequest({ request, url, endResponse, serverContext }) {
      if (url.pathname !== MCP_PATH) return;
      // The gate resolved the caller and refused anonymous /mcp requests; this only guards against a
      // plugin order mistake.
      const requestCaller = await deps.callerOf(request, serverContext);
      if (!requestCaller.caller) {
        return endResponse(jsonRpcError(401, -32041, unauthenticated().message));
      }
      // No server-initiated messages exist, so there is no SSE stream to open (the spec allows 405).
      if (request.method !== 'POST') {
        return endResponse(
          jsonRpcError(405, -32000, 'Method not allowed: POST JSON-RPC to /mcp', { allow: 'POST' }),
        );
      }
      const body = await readSingleMessage(request);
      if ('refusal' in body) return endResponse(body.refusal);
      const service = serviceExecutor(
        (path, init) => deps.fetchService(path, init, requestCaller),
        request.headers.get('authorization'),
        requestLogContext.getStore()?.reqId,
        request.signal,
      );
      const server = createMcpServer(service, { onFault: (error) => logError(deps.logger, error, 'mcp') });
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      await server.connect(transport);
      try {
        endResponse(await transport.handleRequest(request, { parsedBody: body.message }));
      } finally {
        await server.close();
      }
    },
  };
}

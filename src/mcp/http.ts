// Streamable HTTP at /mcp. Stateless: every POST gets a new MCP server and transport, so any instance
// behind a load balancer answers any request and nothing is kept between them. The S3 gate resolved
// the caller (and refused anonymous requests) before this runs; tools reach the service in-process.
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Plugin } from 'graphql-yoga';
import type { CallerResolution } from '../auth/caller.js';
import { unauthenticated } from '../auth/errors.js';
import { logError } from '../log-policy.js';
import { requestLogContext, type Logger } from '../logger.js';
import { MAX_REST_BODY_BYTES } from '../http/routes.js';
import { serviceExecutor, type ServiceFetch } from './executor.js';
import { createMcpServer } from './mcp-server.js';

export const MCP_PATH = '/mcp';

interface McpRouteDeps {
  /** The service's own request handling (`yoga.fetch`): tools run the API's operations as the caller. */
  fetchService: ServiceFetch;
  /** The caller the auth gate resolved for this request. */
  resolutionOf(request: Request): CallerResolution | undefined;
  logger: Logger;
}

function jsonRpcError(status: number, code: number, message: string, headers: Record<string, string> = {}) {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

export function mcpRoute(deps: McpRouteDeps): Plugin {
  return {
    async onRequest({ request, url, endResponse }) {
      if (url.pathname !== MCP_PATH) return;
      // The gate refuses anonymous /mcp requests; this only guards against a plugin order mistake.
      if (!deps.resolutionOf(request)?.caller) {
        return endResponse(jsonRpcError(401, -32041, unauthenticated().message));
      }
      // No server-initiated messages exist, so there is no SSE stream to open (the spec allows 405).
      if (request.method !== 'POST') {
        return endResponse(
          jsonRpcError(405, -32000, 'Method not allowed: POST JSON-RPC to /mcp', { allow: 'POST' }),
        );
      }
      const service = serviceExecutor(
        deps.fetchService,
        request.headers.get('authorization'),
        requestLogContext.getStore()?.reqId,
        request.signal,
      );
      const server = createMcpServer(service, { onFault: (error) => logError(deps.logger, error, 'mcp') });
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
        maxRequestBodySize: MAX_REST_BODY_BYTES,
      });
      await server.connect(transport);
      try {
        endResponse(await transport.handleRequest(request));
      } finally {
        await server.close();
      }
    },
  };
}

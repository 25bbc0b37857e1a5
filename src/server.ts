// Builds the service from its parts: Yoga (GraphQL over HTTP and SSE, GraphiQL), graphql-ws on the
// same path, plain HTTP routes and the operator page. No globals: everything comes in `deps`.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import { MISSING, TokenIdentities } from './auth/caller.js';
import { CallerResolver, RequestCaller } from './auth/request-caller.js';
import { schema } from './schema/index.js';
import type { GraphQLContext } from './schema/context.js';
import { boundedMasking, maskErrors, requestError } from './schema/errors.js';
import type { Database } from './store/db.js';
import type { MemoryEvents } from './live/events.js';
import { AgentFeeds } from './live/agent-feeds.js';
import { SharedLoads } from './live/shared-loads.js';
import { TokenSessions } from './live/token-sessions.js';
import { Fanout } from './live/fanout.js';
import { TokenConnections } from './live/token-connections.js';
import { createWsServer, type SocketOperationContext } from './transport/ws/ws-server.js';
import type { Logger } from './logger.js';
import { healthRoutes } from './http/health-routes.js';
import { restMemoriesRoute } from './http/rest-memories.js';
import { exportRoute } from './http/export.js';
import { webPage } from './http/web-page.js';
import { createAuthGate, MAX_DOCUMENT_BYTES, type AuthGate } from './http/auth-gate.js';
import { documentLimitsPlugin } from './http/document-limits.js';
import { compiledQueries, type CompiledQueriesOptions } from './http/compiled-queries.js';
import { referenceExecutor } from './http/reference-executor.js';
import { Metrics } from './metrics.js';
import { metricsPlugin } from './http/metrics-plugin.js';
import { browserPolicyPlugin, corsPolicy, verifyWebSocketOrigin } from './http/browser-policy.js';
import { graphiqlAssetsPlugin, introspectionOff, renderOfflineGraphiQL } from './http/graphiql.js';
import { requestLogPlugin } from './http/request-log.js';
import { sseSubscriptions } from './http/sse-subscriptions.js';
import { MCP_PATH, mcpRoute } from './mcp/http.js';
import { MCP_LIST_CALL_HEADER } from './mcp/executor.js';
import { DEFAULT_MAX_EXPENSIVE_PER_TOKEN, ReadBudget } from './service/read-budget.js';
import { boundValidationErrors, yogaLogging } from './log-policy.js';
import { costLimitPlugin } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';

export interface ServerDeps {
  db: Database;
  events: MemoryEvents;
  adminToken: string;
  logger: Logger;
  now?: () => Date;
  /** Folder of the built operator page; omitted ⇒ no page. */
  webRoot?: string;
  maxConnectionsPerToken?: number;
  /** How often open sessions' tokens are re-checked (L4: revocations made elsewhere); default 500 ms. */
  sessionCheckMs?: number;
  /** S2: foreign browser origins allowed (CORS and WebSocket); default none. */
  corsOrigins?: string[];
  /** GraphiQL on /graphql (default on); introspection (default on). */
  graphiql?: boolean;
  /** Demo mode: the demo agent's operator token, pre-filled in GraphiQL's headers editor. */
  graphiqlToken?: () => string | null;
  introspection?: boolean;
  /** Queries compiled once seen again (default on); false: the reference executor only. */
  compiledQueries?: CompiledQueriesOptions | false;
  /** S8: expensive reads (searches, exports, MCP list calls) one token runs at once; default 2. */
  maxExpensivePerToken?: number;
}

export interface Server {
  yoga: YogaServerInstance<Record<string, unknown>, GraphQLContext>;
  httpServer: http.Server;
  listen(port: number, host: string): Promise<AddressInfo>;
  /** Stops accepting, finishes in-flight requests, closes WebSockets with 1001. */
  close(): Promise<void>;
  /** memoryAdded's open feeds and fan-out groups (whether anything of a subscription is left). */
  readonly feeds: AgentFeeds;
  readonly fanout: Fanout;
}
/**
 * An HTTP request (the gate resolved its caller), a socket operation (resolved in onSubscribe) or an
 * MCP tool's in-process call (the caller of the MCP request it serves).
 */
type InitialContext = { request?: Request } & Partial<SocketOperationContext>;

/** What the Yoga instance is built from besides `deps`. */
interface YogaParts {
  authGate: AuthGate;
  callers: CallerResolver;
  sessions: TokenSessions;
  /** S11: every token's open WebSockets and SSE streams, against one bound. */
  connections: TokenConnections;
  metrics: Metrics;
  now: () => Date;
  corsOrigins: string[];
  maskError: ReturnType<typeof maskErrors>;
  fanout: Fanout;
  /** memoryAdded's feeds, one per agent with subscribers, over this server's event bus. */
  feeds: AgentFeeds;
  budget: ReadBudget;
}

function contextFactory(deps: ServerDeps, parts: YogaParts) {
  const sharedLoads = new SharedLoads();
  // S9: why a request's reads end once its answer is complete. One per server: an abort without a
  // reason builds a DOMException, stack included, on every request (≈ 2 % of a page's CPU).
  const answeredReason = new Error('the request was answered');
  return async (initial: InitialContext): Promise<GraphQLContext> => {
    // Resolved once, before the context: per WebSocket operation (onSubscribe) or per request (the gate).
    const auth =
      initial.requestCaller ??
      (initial.request
        ? await parts.authGate.callerOf(initial.request, initial)
        : new RequestCaller(deps.db, MISSING));
    const resolution = auth.resolution;
    // S9: a request's reads end when its client goes away or its answer is complete (endRequest):
    // one controller, which the client's signal aborts too (cheaper than AbortSignal.any per request).
    const answered = new AbortController();
    const ended = initial.request?.signal ?? initial.signal;
    const clientLeft = () => answered.abort(ended?.reason);
    if (ended?.aborted) clientLeft();
    else ended?.addEventListener('abort', clientLeft, { once: true });
    const signal = answered.signal;
    return {
      db: deps.db.scoped({ signal }),
      liveDb: deps.db,
      budget: parts.budget,
      signal,
      endRequest: () => {
        ended?.removeEventListener('abort', clientLeft);
        answered.abort(answeredReason);
      },
      mcpListCall: initial.request?.headers.get(MCP_LIST_CALL_HEADER) === '1',
      auth,
      caller: resolution.caller,
      authFailure: resolution.failure,
      events: deps.events,
      feeds: parts.feeds,
      sharedLoads,
      sessions: parts.sessions,
      metrics: parts.metrics,
      now: parts.now,
    };
  };
}

/** GraphiQL's first screen: a query that works as it stands, with the demo's token when there is one. */
function graphiqlOptions(token: string | null) {
  const hint = token
    ? "# The demo agent's operator token is in the Headers tab; run this with ▶."
    : '# Put {"Authorization": "Bearer <token>"} in the Headers tab, then run this with ▶.';
  return {
    subscriptionsProtocol: 'WS' as const,
    title: 'Memory service',
    defaultQuery: `${hint}\nquery Types {\n  memoryTypes { type count }\n}\n`,
    ...(token ? { headers: JSON.stringify({ Authorization: `Bearer ${token}` }, null, 2) } : {}),
  };
}

/**
 * S9: once an operation's answer is complete nobody waits for its other reads (a non-null field
 * failed and nulled `data` while a sibling's statement still runs): they are cancelled.
 */
const endRequestWhenAnswered: Plugin = {
  onExecute: ({ args }) => ({
    onExecuteDone: () => (args.contextValue as Partial<GraphQLContext>).endRequest?.(),
  }),
};

function createYogaApp(deps: ServerDeps, parts: YogaParts): Server['yoga'] {
  const contextFor = contextFactory(deps, parts);
  const { corsOrigins, metrics, now } = parts;
  const routeDeps = {
    ...deps,
    now,
    metrics,
    callerOf: parts.authGate.callerOf,
    budget: parts.budget,
    sessions: parts.sessions,
  };
  const yoga: Server['yoga'] = createYoga<Record<string, unknown>, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    context: (initial) => contextFor(initial as InitialContext),
    // S2: CORS only for CORS_ORIGINS, without credentials; GraphiQL bundled and served by us (offline, CSP).
    cors: corsPolicy(corsOrigins),
    landingPage: false,
    renderGraphiQL: renderOfflineGraphiQL,
    graphiql: deps.graphiql !== false && (() => graphiqlOptions(deps.graphiqlToken?.() ?? null)),
    maskedErrors: { maskError: parts.maskError },
    logging: yogaLogging(deps.logger),
    // Request limits (GraphQL Armor): parse and validation refuse abusive documents before execution.
    plugins: [
      requestLogPlugin(deps.logger),
      metricsPlugin(metrics),
      browserPolicyPlugin({ corsOrigins, graphqlEndpoint: '/graphql' }),
      ...(deps.graphiql !== false ? [graphiqlAssetsPlugin()] : []),
      ...(deps.introspection === false ? [introspectionOff] : []),
      boundValidationErrors,
      healthRoutes(deps.db),
      restMemoriesRoute(routeDeps),
      exportRoute(routeDeps),
      // Last of the plain routes: any other GET that names a file of the page.
      ...(deps.webRoot ? [webPage(deps.webRoot)] : []),
      sseSubscriptions(parts.fanout, parts.connections),
      endRequestWhenAnswered,
      parts.authGate.plugin,
      // After the gate: MCP tools run the API's own operations in-process, as the caller.
      mcpRoute({
        // A tool's call serves the MCP request: it shares that request's caller (one resolution).
        fetchService: async (path, init, requestCaller): Promise<Response> =>
          yoga.fetch(`http://mcp.internal${path}`, init, { requestCaller }),
        callerOf: parts.authGate.callerOf,
        logger: deps.logger,
      }),
      maxTokensPlugin({ n: 2000 }),
      documentLimitsPlugin(),
      maxDepthPlugin({ n: 12, flattenFragments: true }),
      maxAliasesPlugin({ n: 20 }),
      costLimitPlugin({ maxCost: 10_000 }),
      referenceExecutor, // G1
      // Last: it replaces the executor of queries only, after every other plugin has had its say.
      ...(deps.compiledQueries === false ? [] : [compiledQueries(metrics, deps.compiledQueries)]),
    ],
  });
  return yoga;
}

/** Stops accepting; in-flight requests get a moment to finish, then the remaining connections are cut. */
function closeHttp(httpServer: http.Server): () => Promise<void> {
  const sockets = new Set<Socket>();
  httpServer.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  return async () => {
    const closed = new Promise<void>((resolve) => httpServer.close(() => resolve()));
    httpServer.closeIdleConnections();
    const timer = setTimeout(() => {
      for (const socket of sockets) socket.destroy();
    }, 3000);
    await closed;
    clearTimeout(timer);
  };
}

export function createServer(deps: ServerDeps): Server {
  const sessions = new TokenSessions(deps.db.sql, deps.logger, deps.sessionCheckMs);
  const connections = new TokenConnections(deps.maxConnectionsPerToken ?? 20);
  const budget = new ReadBudget(deps.maxExpensivePerToken ?? DEFAULT_MAX_EXPENSIVE_PER_TOKEN);
  const metrics = new Metrics({
    openConnections: () => connections.open(),
    pools: deps.db.pools,
    expensiveReads: () => budget.inUse,
  });
  const maskError = boundedMasking(maskErrors(deps.logger, metrics));
  const callers = new CallerResolver(deps.db, deps.adminToken, new TokenIdentities());
  const parts: YogaParts = {
    authGate: createAuthGate({ callers, logger: deps.logger, tokenOnlyPaths: [MCP_PATH] }),
    callers,
    sessions,
    connections,
    metrics,
    now: deps.now ?? (() => new Date()),
    corsOrigins: deps.corsOrigins ?? [],
    maskError,
    budget,
    feeds: new AgentFeeds(deps.db, deps.events),
    fanout: new Fanout({
      maskError: (error) => maskError(error, 'Unexpected error.'),
      scopeOf: (args) => {
        const caller = (args.contextValue as GraphQLContext).caller;
        if (!caller) return null;
        return caller.kind === 'admin' ? 'admin' : `${caller.kind}:${caller.agentId}`;
      },
    }),
  };
  const yoga = createYogaApp(deps, parts);
  const httpServer = http.createServer(yoga);
  const wsServer = createWsServer({
    httpServer,
    yoga,
    callers,
    logger: deps.logger,
    sessions,
    verifyClient: verifyWebSocketOrigin(parts.corsOrigins), // S2
    connections,
    maxDocumentBytes: MAX_DOCUMENT_BYTES,
    fanout: parts.fanout,
    requestError,
  });
  const stopHttp = closeHttp(httpServer);

  return {
    yoga,
    httpServer,
    feeds: parts.feeds,
    fanout: parts.fanout,
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        httpServer.once('error', reject);
        httpServer.listen(port, host, () => resolve(httpServer.address() as AddressInfo));
      }),
    async close() {
      sessions.close();
      await wsServer.close();
      await stopHttp();
    },
  };
}

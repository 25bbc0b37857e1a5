// Real live-update clients: graphql-ws over `ws`, and Server-Sent Events over fetch.
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';

export const MEMORY_ADDED = `subscription($agentId: UUID, $filter: MemoryFilter, $after: String) {
  memoryAdded(agentId: $agentId, filter: $filter, after: $after) { cursor node { id type content createdAt instruments } }
}`;

export interface Edge {
  cursor: string;
  node: { id: string; type: string; content: string; createdAt: string; instruments: string[] };
}

export interface LiveSubscription {
  edges: Edge[];
  errors: unknown[];
  closed: Promise<void>;
  /** Resolves once at least `count` edges arrived (rejects after `ms`). */
  waitFor(count: number, ms?: number): Promise<Edge[]>;
  stop(): Promise<void>;
}

export function wsClient(
  baseUrl: string,
  token: string | null,
  extra: { onClose?: (code: number) => void } = {},
): Client {
  return createClient({
    url: `${baseUrl.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: token ? { authorization: `Bearer ${token}` } : {},
    retryAttempts: 0,
    lazy: true,
    on: { closed: (event) => extra.onClose?.((event as { code: number }).code) },
  });
}

/** A failure as a test report shows it: GraphQL errors as JSON, a socket close by its code and reason. */
function describeFailure(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  const close = error as { code?: unknown; reason?: unknown } | null;
  if (close && typeof close.code === 'number')
    return `socket closed ${close.code} ${String(close.reason ?? '')}`;
  return JSON.stringify(error);
}

function collector(): LiveSubscription & {
  push(edge: Edge): void;
  fail(error: unknown): void;
  done(): void;
} {
  const edges: Edge[] = [];
  const errors: unknown[] = [];
  const waiters: (() => void)[] = [];
  let finish!: () => void;
  const closed = new Promise<void>((resolve) => (finish = resolve));
  const notify = () => waiters.splice(0).forEach((w) => w());
  const self = {
    edges,
    errors,
    closed,
    push(edge: Edge) {
      edges.push(edge);
      notify();
    },
    fail(error: unknown) {
      errors.push(error);
      notify();
      finish();
    },
    done() {
      notify();
      finish();
    },
    async waitFor(count: number, ms = 5000) {
      const deadline = Date.now() + ms;
      while (edges.length < count) {
        if (errors.length) throw new Error(`subscription failed: ${errors.map(describeFailure).join('; ')}`);
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`timed out with ${edges.length}/${count} edges`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return edges;
    },
    stop: async () => {},
  };
  return self;
}

export function subscribeWs(client: Client, variables: Record<string, unknown> = {}): LiveSubscription {
  const sub = collector();
  const unsubscribe = client.subscribe<{ memoryAdded: Edge }>(
    { query: MEMORY_ADDED, variables },
    {
      next: (result) => {
        if (result.errors?.length) sub.fail(result.errors);
        else if (result.data) sub.push(result.data.memoryAdded);
      },
      error: (error) => sub.fail(error),
      complete: () => sub.done(),
    },
  );
  sub.stop = async () => unsubscribe();
  return sub;
}

/** A memoryAdded subscription over GraphQL-over-SSE (`accept: text/event-stream`), as a plain fetch. */
function postSubscription(
  baseUrl: string,
  token: string,
  variables: Record<string, unknown>,
  signal: AbortSignal,
): Promise<Response> {
  return fetch(`${baseUrl}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({ query: MEMORY_ADDED, variables }),
    signal,
  });
}

/** The `data` of each event of a text/event-stream body, in order (events without data are skipped). */
export async function* sseData(response: Response): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let split;
    while ((split = buffer.indexOf('\n\n')) >= 0) {
      const data = buffer
        .slice(0, split)
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trim())
        .join('\n');
      buffer = buffer.slice(split + 2);
      if (data) yield data;
    }
  }
}

/** GraphQL over SSE (Yoga's default "distinct connections" mode) with a plain fetch. */
export function subscribeSse(
  baseUrl: string,
  token: string,
  variables: Record<string, unknown> = {},
): LiveSubscription {
  const sub = collector();
  const abort = new AbortController();
  void (async () => {
    try {
      const response = await postSubscription(baseUrl, token, variables, abort.signal);
      for await (const data of sseData(response)) {
        const payload = JSON.parse(data) as { data?: { memoryAdded: Edge }; errors?: unknown[] };
        if (payload.errors?.length) sub.fail(payload.errors);
        else if (payload.data) sub.push(payload.data.memoryAdded);
      }
      sub.done();
    } catch (error) {
      if (!abort.signal.aborted) sub.fail(error);
      else sub.done();
    }
  })();
  sub.stop = async () => abort.abort();
  return sub;
}

/** A graphql-ws client that connects at once; `closed` resolves with the socket's close code. */
export function openSocket(
  baseUrl: string,
  token: string | null,
): { client: Client; connected: Promise<void>; closed: Promise<number> } {
  let onClosed!: (code: number) => void;
  let onConnected!: () => void;
  const closed = new Promise<number>((resolve) => (onClosed = resolve));
  const connected = new Promise<void>((resolve) => (onConnected = resolve));
  const client = createClient({
    url: `${baseUrl.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: token ? { authorization: `Bearer ${token}` } : {},
    retryAttempts: 0,
    lazy: false,
    // The close code is what a test reads; graphql-ws would print the close event too.
    onNonLazyError: () => {},
    on: {
      closed: (event) => onClosed((event as { code: number }).code),
      connected: () => onConnected(),
    },
  });
  return { client, connected, closed };
}

/** One SSE event's `data` as JSON (a GraphQL result). */
export interface SseResult {
  data?: Record<string, any>;
  errors?: { message: string; extensions?: Record<string, unknown> }[];
}

/** A GraphQL-over-SSE response as it arrives: status, results in order, and when its body ended. */
export interface SseStream {
  status: number;
  headers: Headers;
  results: SseResult[];
  /** Resolves with the instant (Date.now()) the body ended, cleanly or not. */
  ended: Promise<number>;
  /** Resolves once at least `count` results arrived (rejects after `ms`). */
  waitFor(count: number, ms?: number): Promise<SseResult[]>;
  close(): void;
}

/** POSTs a memoryAdded subscription with `accept: text/event-stream` and reads its events. */
export async function openSse(
  baseUrl: string,
  token: string,
  variables: Record<string, unknown> = {},
): Promise<SseStream> {
  const abort = new AbortController();
  const response = await postSubscription(baseUrl, token, variables, abort.signal);
  const results: SseResult[] = [];
  const ended = (async () => {
    try {
      for await (const data of sseData(response)) results.push(JSON.parse(data) as SseResult);
    } catch {
      // Aborted by close(), or cut by the server: either way the body has ended.
    }
    return Date.now();
  })();
  return {
    status: response.status,
    headers: response.headers,
    results,
    ended,
    async waitFor(count, ms = 5000) {
      const deadline = Date.now() + ms;
      while (results.length < count) {
        if (Date.now() > deadline) throw new Error(`timed out with ${results.length}/${count} SSE results`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return results;
    },
    close: () => abort.abort(),
  };
}

/** How a poller reads `/metrics`: `h.fetch` in process, or `(path) => fetch(base + path)` for a process. */
type MetricsFetch = (path: string) => Promise<Response>;

/** The service's joined memoryAdded subscriptions (L1), as its Prometheus gauge reads. */
export async function openSubscriptions(fetchPath: MetricsFetch): Promise<number> {
  const text = await (await fetchPath('/metrics')).text();
  return Number(/^memory_subscriptions_open (\d+)$/m.exec(text)?.[1]);
}

/** Polls the gauge every 50 ms until it reads `expected` or `ms` pass; returns the last reading. */
export async function settleOpenSubscriptions(
  fetchPath: MetricsFetch,
  expected: number,
  ms = 5_000,
): Promise<number> {
  const deadline = Date.now() + ms;
  let value = await openSubscriptions(fetchPath);
  while (value !== expected && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await openSubscriptions(fetchPath);
  }
  return value;
}

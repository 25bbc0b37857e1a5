// L4, S6, W9 on real sockets: who may keep a WebSocket open, how many operations it may hold, and
// how revoking a token or finishing a run ends every open connection within a second.
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SUBSCRIPTIONS_PER_SOCKET } from '../../src/transport/ws/socket-operations.js';

import {
  CREATE_MEMORY,
  createAgentFixture,
  startHarness,
  startRun,
  type AgentFixture,
  type Harness,
} from '../support/harness.js';
import { openSubscriptions, settleOpenSubscriptions, subscribeSse, subscribeWs } from '../support/live.js';
import { CloseCode } from '../../src/transport/ws/close-codes.js';

let h: Harness;
let base: string;
let fx: AgentFixture;

beforeAll(async () => {
  h = await startHarness({ maxConnectionsPerToken: 100 });
  const address = await h.server.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${address.port}`;
  fx = await createAgentFixture(h, { instruments: ['BTC', 'ETH'] });
});
afterAll(async () => {
  await h.close();
});

/** A graphql-ws client whose close codes are recorded; connects at once. */
function socket(
  token: string | null,
  url = base,
): { client: Client; closed: Promise<number>; connected: Promise<void> } {
  let onClosed!: (code: number) => void;
  let onConnected!: () => void;
  const closed = new Promise<number>((resolve) => (onClosed = resolve));
  const connected = new Promise<void>((resolve) => (onConnected = resolve));
  const client = createClient({
    url: `${url.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: token ? { authorization: `Bearer ${token}` } : {},
    retryAttempts: 0,
    lazy: false,
    on: {
      closed: (event) => onClosed((event as { code: number }).code),
      connected: () => onConnected(),
    },
  });
  return { client, closed, connected };
}

/** One query or mutation over the socket. */
function request<T = Record<string, any>>(
  client: Client,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<{ data?: T; errors?: { message: string; extensions?: Record<string, unknown> }[] }> {
  return new Promise((resolve, reject) => {
    let result: { data?: T; errors?: never[] } = {};
    client.subscribe<T>(
      { query, variables },
      {
        next: (value) => (result = value as typeof result),
        error: (error) => (Array.isArray(error) ? resolve({ errors: error as never[] }) : reject(error)),
        complete: () => resolve(result),
      },
    );
  });
}

const within = <T>(promise: Promise<T>, ms: number): Promise<T> =>
  Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`not within ${ms} ms`)), ms)),
  ]);

const note = (content: string) => ({ input: { type: 'note', scope: 'AGENT', content } });

async function newOperatorToken(): Promise<{ id: string; token: string }> {
  const { createOperatorToken } = await h.ok<{
    createOperatorToken: { token: string; operatorToken: { id: string } };
  }>(
    'mutation($a: UUID!) { createOperatorToken(agentId: $a, label: "desk") { token operatorToken { id } } }',
    {
      a: fx.agentId,
    },
  );
  return { id: createOperatorToken.operatorToken.id, token: createOperatorToken.token };
}

describe('L4: who may hold a socket', () => {
  it('L4: no token, an unknown token and a garbage token are closed with 4401 at connection_init', async () => {
    for (const token of [null, 'op_unknown', 'run_unknown', 'garbage']) {
      const { closed } = socket(token);
      expect(await within(closed, 2000)).toBe(CloseCode.Unauthorized);
    }
  });

  it('L4: a finished run and a revoked operator token are closed with 4403 at connection_init', async () => {
    const run = await startRun(h, fx.producers.adhoc!.id);
    await h.ok('mutation($r: UUID!) { finishRun(runId: $r, status: SUCCEEDED) { id } }', { r: run.runId });
    const operator = await newOperatorToken();
    await h.ok('mutation($id: UUID!) { revokeOperatorToken(id: $id) { id } }', { id: operator.id });
    for (const token of [run.token, operator.token]) {
      const { closed } = socket(token);
      expect(await within(closed, 2000)).toBe(CloseCode.Forbidden);
    }
  });

  it(`L4: the ${MAX_SUBSCRIPTIONS_PER_SOCKET + 1}st subscription on one socket gets an error; the socket stays open`, async () => {
    const { client, connected } = socket(fx.operatorToken);
    await connected;
    const before = await openSubscriptions(h.fetch);
    const subs = Array.from({ length: MAX_SUBSCRIPTIONS_PER_SOCKET }, () =>
      subscribeWs(client, { filter: { types: ['l4_limit'] } }),
    );
    // All of them joined (under a loaded machine that takes longer than any fixed pause).
    const full = before + MAX_SUBSCRIPTIONS_PER_SOCKET;
    expect(await settleOpenSubscriptions(h.fetch, full, 10_000)).toBe(full);
    const extra = subscribeWs(client, { filter: { types: ['l4_limit'] } });
    await within(extra.closed, 2000);
    expect(JSON.stringify(extra.errors)).toContain('TOO_MANY_SUBSCRIPTIONS');
    expect(subs.every((sub) => sub.errors.length === 0)).toBe(true);
    // The socket still serves: end one subscription and the next operation is accepted.
    await subs[0]!.stop();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const answer = await request<{ viewer: { kind: string } }>(client, '{ viewer { kind } }');
    expect(answer.data?.viewer.kind).toBe('OPERATOR');
    await client.dispose();
  });
});

describe('L4, S3: what one message can cost', () => {
  it('S3: a WebSocket message over 2 MiB is refused (1009) before it is buffered or parsed', async () => {
    const raw = new WebSocket(`${base.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
    await new Promise((resolve) => raw.once('open', resolve));
    const closed = new Promise<number>((resolve) => raw.once('close', (code) => resolve(code)));
    raw.send(JSON.stringify({ type: 'connection_init', payload: { pad: 'x'.repeat(3 * 1024 * 1024) } }));
    expect(await within(closed, 2000)).toBe(1009);
  });

  it('L4: a syntax error or a limit refuses that operation only; the socket and its subscriptions stay', async () => {
    const { client, connected } = socket(fx.operatorToken);
    await connected;
    const sub = subscribeWs(client, { filter: { types: ['l4_stays'] } });
    for (const query of ['{ viewer { ', `{ memoryTypes { ${'type '.repeat(60)} } }`]) {
      const answer = await request(client, query);
      expect(answer.errors?.length, query.slice(0, 20)).toBeGreaterThan(0);
      expect(JSON.stringify(answer).length).toBeLessThan(2000);
    }
    expect(
      (await request<{ viewer: { kind: string } }>(client, '{ viewer { kind } }')).data?.viewer.kind,
    ).toBe('OPERATOR');
    expect(sub.errors).toHaveLength(0);
    await sub.stop();
    await client.dispose();
  });
});

describe('W9: a socket re-checks its caller for every operation', () => {
  it('W9: finishRun closes the run’s open socket with 4403 at once; nothing is written after', async () => {
    const run = await startRun(h, fx.producers.adhoc!.id);
    const { client, closed, connected } = socket(run.token);
    await connected;
    const first = await request<{ createMemory: { __typename: string } }>(
      client,
      CREATE_MEMORY,
      note('before'),
    );
    expect(first.data?.createMemory.__typename).toBe('CreateMemorySuccess');
    await h.ok('mutation($r: UUID!) { finishRun(runId: $r, status: SUCCEEDED) { id } }', { r: run.runId });
    expect(await within(closed, 1000)).toBe(CloseCode.Forbidden);
    expect(await h.db.prisma.memory.count({ where: { sourceRunId: run.runId } })).toBe(1);
  });

  it('W9: a run finished by another instance cannot act over a socket opened while it ran', async () => {
    // Without the periodic session check, only the per-operation re-check stands between them.
    const quiet = await startHarness({ sessionCheckMs: 60_000 });
    const address = await quiet.server.listen(0, '127.0.0.1');
    try {
      const agent = await createAgentFixture(quiet, { instruments: ['BTC'] });
      const run = await startRun(quiet, agent.producers.adhoc!.id);
      const { client, connected } = socket(run.token, `http://127.0.0.1:${address.port}`);
      await connected;
      // Another instance finishes the run: this instance hears nothing about it.
      const finished = `UPDATE "Run" SET status = 'SUCCEEDED', "finishedAt" = now() WHERE id = $1`;
      await quiet.db.sql.query(finished, [run.runId]);
      const late = await request(client, CREATE_MEMORY, note('after'));
      expect(late.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
      const read = await request(client, '{ viewer { kind } }');
      expect(read.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
      expect(await quiet.db.prisma.memory.count({ where: { sourceRunId: run.runId } })).toBe(0);
      await client.dispose();
    } finally {
      await quiet.close();
    }
  });

  it('W9, L4: a run finished by another instance loses its socket within 1 s (periodic check)', async () => {
    const run = await startRun(h, fx.producers.adhoc!.id);
    const { closed, connected } = socket(run.token);
    await connected;
    const finished = `UPDATE "Run" SET status = 'SUCCEEDED', "finishedAt" = now() WHERE id = $1`;
    await h.db.sql.query(finished, [run.runId]);
    expect(await within(closed, 1500)).toBe(CloseCode.Forbidden);
  });
});

describe('S6: revoking an operator token', () => {
  it('S6: revokeOperatorToken ends HTTP access, the open socket (4403) and the SSE stream at once', async () => {
    const operator = await newOperatorToken();
    const { client, closed, connected } = socket(operator.token);
    await connected;
    const ws = subscribeWs(client, { filter: { types: ['s6'] } });
    const sse = subscribeSse(base, operator.token, { filter: { types: ['s6'] } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = Date.now();
    const { revokeOperatorToken } = await h.ok<{ revokeOperatorToken: { revokedAt: string; label: string } }>(
      'mutation($id: UUID!) { revokeOperatorToken(id: $id) { revokedAt label } }',
      { id: operator.id },
    );
    expect(revokeOperatorToken).toMatchObject({ label: 'desk' });
    expect(await within(closed, 1000)).toBe(CloseCode.Forbidden);
    await within(sse.closed, 1000);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(JSON.stringify(sse.errors)).toContain('FORBIDDEN');
    expect(ws.edges).toHaveLength(0);
    const after = await h.gql('{ viewer { kind } }', {}, operator.token);
    expect(after.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('S6: a revocation made on another instance closes the sockets here within 1 s', async () => {
    const operator = await newOperatorToken();
    const { closed, connected } = socket(operator.token);
    await connected;
    const sse = subscribeSse(base, operator.token, { filter: { types: ['s6'] } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await h.db.sql.query(`UPDATE "OperatorToken" SET "revokedAt" = now() WHERE id = $1`, [operator.id]);
    expect(await within(closed, 1500)).toBe(CloseCode.Forbidden);
    await within(sse.closed, 1500);
    expect(JSON.stringify(sse.errors)).toContain('FORBIDDEN');
  });
});

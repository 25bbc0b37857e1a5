// S14: a write or a read of a token this process already knows is ONE statement —
// its identity is remembered (TokenIdentities), whether it still authenticates never: the insert
// checks RUNNING atomically (W9), a read checks the token inside its own statement, and every other
// answer checks it first (S6). So a finished run or a revoked operator token whose identity is
// remembered gets exactly what one gets whose identity is not: the same status and the same body.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CREATE_MEMORY,
  createAgentFixture,
  startHarness,
  startRun,
  writeOk,
  type AgentFixture,
  type Harness,
} from '../support/harness.js';
import { StatementRecorder } from '../support/statement-recorder.js';

const recorder = new StatementRecorder();
let h: Harness;
let fx: AgentFixture;

beforeAll(async () => {
  h = await startHarness({ recorder, sessionCheckMs: 3_600_000 });
  fx = await createAgentFixture(h, { instruments: ['BTC', 'ETH'] });
});
afterAll(async () => {
  await h.close();
});

const note = { type: 'note', scope: 'AGENT', content: 'n' };
const finish = (runId: string) =>
  h.ok('mutation($r: UUID!) { finishRun(runId: $r, status: SUCCEEDED) { finishedAt } }', { r: runId });

/** A run that wrote once (remembered) and one that never wrote (not remembered), both finished. */
async function finishedRuns() {
  const remembered = await startRun(h, fx.producers.adhoc!.id);
  const unknown = await startRun(h, fx.producers.adhoc!.id);
  await writeOk(h, remembered.token, { ...note, idempotencyKey: 'k1' });
  await finish(remembered.runId);
  await finish(unknown.runId);
  return { remembered, unknown };
}

/** Status and body of a request, with the run's id made neutral (it is named in the refusal). */
async function answer(path: string, body: unknown, caller: { token: string; runId?: string }) {
  const response = await h.fetch(path, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/graphql-response+json, application/json, text/event-stream',
      authorization: `Bearer ${caller.token}`,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: caller.runId ? text.replaceAll(caller.runId, '<run>') : text };
}

/** An operator token of the fixture's agent. */
async function operatorToken() {
  const { createOperatorToken } = await h.ok<{
    createOperatorToken: { token: string; operatorToken: { id: string } };
  }>('mutation($a: UUID!) { createOperatorToken(agentId: $a) { token operatorToken { id } } }', {
    a: fx.agentId,
  });
  return { token: createOperatorToken.token, id: createOperatorToken.operatorToken.id };
}
const revoke = (id: string) =>
  h.ok('mutation($id: UUID!) { revokeOperatorToken(id: $id) { revokedAt } }', { id });

describe('S14: remembered token identities (with W9, S6)', () => {
  it('W9: a known run’s write is one statement, its run check inside the insert', async () => {
    const run = await startRun(h, fx.producers.adhoc!.id);
    await writeOk(h, run.token, note);
    const trips = await recorder.during(() => writeOk(h, run.token, note));
    expect(trips.count).toBe(1);
    expect(trips.statements[0]).toMatch(/^sql: WITH writer/);
  });

  it('S6: a finished run gets the same refusal whether or not its identity is remembered', async () => {
    const { remembered, unknown } = await finishedRuns();
    const requests: [string, unknown][] = [
      ['/graphql', { query: CREATE_MEMORY, variables: { input: note } }], // the insert refuses (W9)
      ['/graphql', { query: CREATE_MEMORY, variables: { input: { ...note, scope: 'INSTRUMENTS' } } }], // typed error
      ['/graphql', { query: CREATE_MEMORY, variables: { input: { ...note, idempotencyKey: 'k1' } } }], // W8 retry
      ['/graphql', { query: CREATE_MEMORY, variables: { input: { ...note, scope: 'NOPE' } } }], // a refused variable
      ['/graphql', { query: '{ tradingContext(instrument: "BTC") { instrument } }' }],
      ['/graphql', { query: '{ noSuchField }' }], // refused before it is parsed or validated (S3)
      [
        '/graphql',
        {
          query: `mutation { a: createMemory(input: { type: "n", scope: AGENT, content: "c" }) { __typename } }`,
        },
      ],
      [
        '/graphql',
        {
          query: `mutation M { createMemory(input: { type: "n", scope: AGENT, content: "c" }) { __typename } } query Q { memoryTypes { type } }`,
          operationName: 'Q',
        },
      ],
      ['/graphql', { query: '{ memoryTypes { type } } # createMemory' }],
      ['/graphql', { query: '{ memoryTypes { nope } } # createMemory' }], // refused by validation
      ['/graphql', { query: '{ memoryTypes { type } # createMemory' }], // refused by the parser
      ['/graphql', { query: 'subscription { memoryAdded { cursor } } # createMemory' }],
      ['/api/v1/memories', { type: 'note', scope: 'AGENT', content: 'c' }],
      ['/api/v1/memories', { type: 'note', scope: 'AGENT' }], // invalid body
      ['/api/v1/memories', '{not json'],
      [
        '/graphql',
        {
          query: `mutation { createMemory(input: { type: "n", scope: AGENT, content: "c" }) @skip(if: true) { __typename } }`,
        },
      ],
    ];
    for (const [path, body] of requests) {
      const expected = await answer(path, body, unknown);
      expect(expected.body).toContain(
        'UNAUTHENTICATED'.toLowerCase() === expected.body ? '' : 'run <run> is SUCCEEDED',
      );
      expect(await answer(path, body, remembered), `${path} ${JSON.stringify(body)}`).toEqual(expected);
    }
    expect(await h.db.prisma.memory.count({ where: { sourceRunId: remembered.runId } })).toBe(1);
  });

  it('S6: a known operator’s page, type counts and record are one statement each, the token check inside', async () => {
    const operator = await operatorToken();
    await h.ok('{ memoryTypes { type } }', {}, operator.token); // its identity is read once
    const written = await writeOk(h, (await startRun(h, fx.producers.adhoc!.id)).token, note);
    const reads = [
      '{ memories(first: 5) { edges { node { id instruments } } } }',
      '{ memoryTypes { type count } }',
      `{ memory(id: "${written.id}") { id } }`,
    ];
    for (const query of reads) {
      const trips = await recorder.during(() => h.ok(query, {}, operator.token));
      expect(trips.count, query).toBe(1);
    }
    // A read that finds nothing asks once more whether the token still authenticates.
    const empty = await recorder.during(() =>
      h.ok('{ memory(id: "00000000-0000-4000-8000-000000000000") { id } }', {}, operator.token),
    );
    expect(empty.statements).toEqual([
      expect.stringMatching(/^sql: WITH record/),
      'sql: SELECT revokedAt FROM OperatorToken WHERE agentId = $ AND id = $',
    ]);
  });

  it('S6: a revoked operator token reads nothing at once, whether or not its identity is remembered', async () => {
    const remembered = await operatorToken();
    const unknown = await operatorToken();
    const record = await writeOk(h, (await startRun(h, fx.producers.adhoc!.id)).token, note);
    const page = '{ memories(first: 5) { edges { node { id } } } }';
    expect(
      (await h.ok<{ memories: { edges: unknown[] } }>(page, {}, remembered.token)).memories.edges,
    ).not.toHaveLength(0);
    await revoke(remembered.id);
    await revoke(unknown.id);
    const requests: [string, unknown][] = [
      ['/graphql', { query: page }], // the page's own statement finds the token revoked
      ['/graphql', { query: '{ memoryTypes { type count } }' }],
      ['/graphql', { query: `{ memory(id: "${record.id}") { id content } }` }],
      ['/graphql', { query: '{ memory(id: "00000000-0000-4000-8000-000000000000") { id } }' }],
      [
        '/graphql',
        { query: '{ tradingContext(instrument: "BTC") { entries { memoryId } learnings { id } } }' },
      ],
      ['/graphql', { query: '{ a: memories(first: 1) { edges { cursor } } b: memoryTypes { type } }' }],
      ['/graphql', { query: '{ memories(first: 0) { edges { cursor } } }' }], // a typed input error
      ['/graphql', { query: `{ memories(agentId: "${fx.producers.adhoc!.id}") { edges { cursor } } }` }], // another agent
      [
        '/graphql',
        { query: 'query($n: Int) { memories(first: $n) { edges { cursor } } }', variables: { n: 'x' } },
      ],
      ['/graphql', { query: '{ memories { edges { nope } } }' }], // refused by validation
      ['/graphql', { query: '{ memories { edges { cursor } }' }], // refused by the parser
      ['/graphql', { query: '{ memories(first: 1) { edges { cursor } } __typename }' }], // checked first
      ['/graphql', { query: '{ agents { id } }' }], // names no folded read: checked before parsing
      ['/graphql', { query: 'subscription { memoryAdded { cursor } }' }],
      ['/graphql', { query: CREATE_MEMORY, variables: { input: note } }],
      ['/api/v1/memories', { type: 'note', scope: 'AGENT', content: 'c' }],
      // Root fields that a directive skips answer without a statement: checked first.
      ['/graphql', { query: '{ memories @skip(if: true) { edges { cursor } } }' }],
      [
        '/graphql',
        {
          query: 'query($s: Boolean!) { memoryTypes @include(if: $s) { type } }',
          variables: { s: false },
        },
      ],
    ];
    // A small introspection is answered anonymously to a dead token, as to no token (S3).
    const introspection: [string, unknown][] = [
      ['/graphql', { query: '{ memories: __typename }' }],
      ['/graphql', { query: '{ __schema { queryType { name } } } # memories' }],
    ];
    for (const [path, body] of [...requests, ...introspection]) {
      const expected = await answer(path, body, unknown);
      const anonymous = introspection.some(([, other]) => other === body);
      expect(expected.status, `${path} ${JSON.stringify(body)}`).toBe(anonymous ? 200 : 401);
      if (!anonymous) expect(expected.body).toContain('operator token revoked');
      expect(await answer(path, body, remembered), `${path} ${JSON.stringify(body)}`).toEqual(expected);
    }
  });
});

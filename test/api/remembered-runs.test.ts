// Issue 14 item 4: a write of a run this process already knows is ONE statement — its identity is
// remembered (RunIdentities), its status never: the insert checks RUNNING atomically (W9) and every
// other answer reads the status first (S6). So a finished run whose identity is remembered gets
// exactly what a finished run gets whose identity is not: the same status and the same body.
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
async function answer(path: string, body: unknown, run: { token: string; runId: string }) {
  const response = await h.fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${run.token}` },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.text()).replaceAll(run.runId, '<run>') };
}

describe('remembered run identities (issue 14 item 4, W9, S6)', () => {
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
      ['/graphql', { query: 'subscription { memoryAdded { cursor } } # createMemory' }],
      ['/api/v1/memories', { type: 'note', scope: 'AGENT', content: 'c' }],
      ['/api/v1/memories', { type: 'note', scope: 'AGENT' }], // invalid body
      ['/api/v1/memories', '{not json'],
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
});

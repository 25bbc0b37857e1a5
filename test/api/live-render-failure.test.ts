// The database fails while a fan-out group renders a record (W5, L2). The subscriber gets the
// generic error and nothing of the failure, and its subscription ends (a record it cannot receive
// is never skipped); once the database answers again, resuming from its last cursor delivers the
// record — a failed render is not kept by the group, even while another member keeps it alive.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAgentFixture, startHarness, startRun, writeOk, type Harness } from '../support/harness.js';
import { RawSocket, type ServerMessage } from '../support/raw-ws.js';

const failure = await vi.hoisted(async () => {
  // Test files may share one module graph (vitest.config.ts: `isolate: false`): this file starts from
  // a fresh one, so the mock below reaches the service's imports, set up as every file is (setup.ts).
  vi.resetModules();
  await import('../support/setup.js');
  return { on: false, calls: 0 };
});
vi.mock('../../src/records/record-reads.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/records/record-reads.js')>();
  return {
    ...original,
    findRecord: async (...args: Parameters<typeof original.findRecord>) => {
      if (failure.on) {
        failure.calls++;
        throw new Error('connection to 10.0.0.5 failed: SELECT content FROM "Memory" -- pglite pool');
      }
      return original.findRecord(...args);
    },
  };
});

const QUERY = `subscription($after: String) { memoryAdded(after: $after) { cursor node { id content } } }`;
const leaks = ['10.0.0.5', 'select', 'memory"', 'pglite', 'pool', 'stack', '    at '];

let h: Harness;
let base: string;
let operator: string;
let runToken: string;

beforeAll(async () => {
  h = await startHarness();
  const address = await h.server.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${address.port}`;
  const fx = await createAgentFixture(h, { instruments: ['BTC'] });
  operator = fx.operatorToken;
  runToken = (await startRun(h, fx.producers.adhoc!.id)).token;
});
afterAll(async () => {
  await h.close();
  // The next file in this worker imports the real module again.
  vi.doUnmock('../../src/records/record-reads.js');
  vi.resetModules();
});

const write = (content: string) => writeOk(h, runToken, { type: 'note', scope: 'AGENT', content });

async function newestCursor(): Promise<string> {
  const page = await h.ok<{ memories: { edges: { cursor: string }[] } }>(
    '{ memories(first: 1) { edges { cursor } } }',
    {},
    operator,
  );
  return page.memories.edges[0]!.cursor;
}

const hasNexts = (socket: RawSocket, id: string, count: number) => () => socket.nexts(id).length >= count;

describe('a render that fails (W5, L2)', () => {
  let keeper: RawSocket;
  let resumer: RawSocket;
  let start: string;
  let failed: Record<string, any>;
  let failedMessage: ServerMessage;

  beforeAll(async () => {
    await write('baseline');
    start = await newestCursor();
    // Two members of one group (same document, same scope): `keeper` keeps the group alive.
    keeper = await RawSocket.open(base, operator);
    resumer = await RawSocket.open(base, operator);
    keeper.subscribe('k', QUERY, { after: start });
    resumer.subscribe('r', QUERY, { after: start });
    failure.on = true;
    failed = await write('rendered while the database fails');
    await keeper.until(hasNexts(keeper, 'k', 1), 'the keeper’s message');
    await resumer.until(hasNexts(resumer, 'r', 1), 'the resumer’s message');
    failure.on = false;
    failedMessage = resumer.nexts('r')[0]!;
  });
  afterAll(async () => {
    await keeper.close();
    await resumer.close();
  });

  it('W5, L2: the subscriber gets the generic error and nothing of the failure, and its subscription ends', async () => {
    expect(failure.calls).toBeGreaterThan(0);
    expect(failedMessage.payload?.data ?? null).toBeNull();
    await resumer.until(() => resumer.messages.some((m) => m.id === 'r' && m.type === 'complete'), 'the end');
    expect(failedMessage.payload?.errors).toEqual([
      expect.objectContaining({
        message: 'Unexpected error.',
        extensions: { code: 'INTERNAL_SERVER_ERROR' },
      }),
    ]);
    const text = JSON.stringify(failedMessage).toLowerCase();
    for (const leak of leaks) expect(text).not.toContain(leak);
  });

  it('L2: resuming from the last cursor once the database answers again delivers the record', async () => {
    resumer.complete('r');
    resumer.subscribe('r2', QUERY, { after: start });
    const next = await write('after the failure');
    await resumer.until(hasNexts(resumer, 'r2', 2), 'the replay and the next record');
    const [replayed, live] = resumer.nexts('r2');
    expect(live!.payload?.data?.memoryAdded?.node.id).toBe(next.id);
    // The record that failed to render is delivered now, not its cached error.
    expect(replayed!.payload?.errors).toBeUndefined();
    expect(replayed!.payload?.data?.memoryAdded?.node.id).toBe(failed.id);
  });
});

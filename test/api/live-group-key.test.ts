// The fan-out group key (caller scope, document, operationName, the variables the selection uses).
// Subscribers that share a group receive one rendering of each record, executed with the variables
// of the group's FIRST member; whoever shares a group must therefore be owed exactly that rendering:
// no record of another agent (S1), the selection variables split groups, and a variable sent as
// `null` is keyed apart from one left out (its default applies).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_TOKEN,
  createAgentFixture,
  startHarness,
  startRun,
  writeOk,
  type AgentFixture,
  type Harness,
} from '../support/harness.js';
import { RawSocket } from '../support/raw-ws.js';

let h: Harness;
let base: string;
let x: AgentFixture & { run: string };
let y: AgentFixture & { run: string };
const sockets: RawSocket[] = [];

async function agent(): Promise<AgentFixture & { run: string }> {
  const fx = await createAgentFixture(h, { instruments: ['BTC'] });
  return { ...fx, run: (await startRun(h, fx.producers.adhoc!.id)).token };
}

beforeAll(async () => {
  h = await startHarness();
  const address = await h.server.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${address.port}`;
  x = await agent();
  y = await agent();
  // A first record each, so that every subscription can start after a cursor (no join race).
  for (const fx of [x, y]) await write(fx, 'baseline');
});
afterAll(async () => {
  for (const socket of sockets) await socket.close();
  await h.close();
});

async function socket(token: string): Promise<RawSocket> {
  const opened = await RawSocket.open(base, token);
  sockets.push(opened);
  return opened;
}

const write = (fx: { run: string }, type: string) =>
  writeOk(h, fx.run, { type, scope: 'AGENT', content: `content of ${type}` });

/** The newest record's cursor of `fx`: subscribing after it makes delivery independent of join timing. */
async function newestCursor(fx: AgentFixture): Promise<string> {
  const page = await h.ok<{ memories: { edges: { cursor: string }[] } }>(
    '{ memories(first: 1) { edges { cursor } } }',
    {},
    fx.operatorToken,
  );
  return page.memories.edges[0]!.cursor;
}

describe('fan-out group isolation (S1, L1)', () => {
  it('S1: admin subscribers of two agents with one document share a group, and each receives only its agent’s records', async () => {
    const query = `subscription($a: UUID, $after: String) { memoryAdded(agentId: $a, after: $after) { node { id agentId } } }`;
    const admin = await socket(ADMIN_TOKEN);
    admin.subscribe('x', query, { a: x.agentId, after: await newestCursor(x) });
    admin.subscribe('y', query, { a: y.agentId, after: await newestCursor(y) });
    const written = [await write(x, 'a'), await write(y, 'b'), await write(x, 'c'), await write(y, 'd')];
    await admin.until(() => admin.nexts('x').length >= 2 && admin.nexts('y').length >= 2, 'two records each');
    expect(admin.nodeIds('x')).toEqual([written[0]!.id, written[2]!.id]);
    expect(admin.nodeIds('y')).toEqual([written[1]!.id, written[3]!.id]);
  });

  it('L1: identical documents with different filter values share a group; each gets only its matches', async () => {
    const query = `subscription($f: MemoryFilter, $after: String) { memoryAdded(filter: $f, after: $after) { node { id type } } }`;
    const after = await newestCursor(x);
    const one = await socket(x.operatorToken);
    one.subscribe('1', query, { f: { types: ['kept_one'] }, after });
    one.subscribe('2', query, { f: { types: ['kept_two'] }, after });
    const a = await write(x, 'kept_one');
    const b = await write(x, 'kept_two');
    await one.until(() => one.nexts('1').length >= 1 && one.nexts('2').length >= 1, 'one record each');
    const c = await write(x, 'kept_one');
    await one.until(() => one.nexts('1').length >= 2, 'the second match');
    expect(one.nodeIds('1')).toEqual([a.id, c.id]);
    expect(one.nodeIds('2')).toEqual([b.id]);
  });

  it('L1: a selection variable (in a fragment’s directive) splits groups: each subscriber gets its own selection', async () => {
    const query = `subscription($full: Boolean!, $after: String) {
      memoryAdded(after: $after) { node { id ...Body @include(if: $full) } }
    } fragment Body on Memory { content }`;
    const after = await newestCursor(x);
    const peer = await socket(x.operatorToken);
    peer.subscribe('full', query, { full: true, after });
    peer.subscribe('bare', query, { full: false, after });
    const record = await write(x, 'selection');
    await peer.until(() => peer.nexts('full').length >= 1 && peer.nexts('bare').length >= 1, 'both');
    expect(peer.nexts('full')[0]!.payload?.data?.memoryAdded?.node).toEqual({
      id: record.id,
      content: 'content of selection',
    });
    expect(peer.nexts('bare')[0]!.payload?.data?.memoryAdded?.node).toEqual({ id: record.id });
  });

  it('L1, W5: @include/@skip with a variable on the root field is refused (graphql-js validation), the socket stays', async () => {
    const peer = await socket(x.operatorToken);
    for (const [id, directive] of [
      ['on', '@include(if: $v)'],
      ['off', '@skip(if: $v)'],
    ] as const) {
      peer.subscribe(id, `subscription($v: Boolean!) { memoryAdded ${directive} { cursor } }`, {
        v: id === 'on',
      });
      await peer.until(() => peer.messages.some((m) => m.id === id), `the answer to ${id}`);
      expect(peer.messages.filter((m) => m.id === id)).toEqual([
        {
          id,
          type: 'error',
          payload: [expect.objectContaining({ extensions: { code: 'BAD_USER_INPUT' } })],
        },
      ]);
    }
    expect(peer.closeCode).toBeNull();
  });

  it('L1: a variable sent as null and one left out (its default applies) render differently, so they must not share a group', async () => {
    // `$c` defaults to true; an explicit null makes @include(if: $c) an error for that subscriber alone.
    const query = `subscription($c: Boolean = true, $after: String) {
      memoryAdded(after: $after) { node { id content @include(if: $c) } }
    }`;
    const after = await newestCursor(x);
    const peer = await socket(x.operatorToken);
    peer.subscribe('null', query, { c: null, after });
    const first = await write(x, 'defaults');
    await peer.until(() => peer.nexts('null').length >= 1, 'the null subscriber’s message');
    peer.subscribe('default', query, { after });
    await peer.until(() => peer.nexts('default').length >= 1, 'the default subscriber’s message');
    // Alone, the subscriber that left `c` out gets the record with its content:
    expect(peer.nexts('default')[0]!.payload).toEqual({
      data: { memoryAdded: { node: { id: first.id, content: 'content of defaults' } } },
    });
  });
});

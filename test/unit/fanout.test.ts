// Serialise once, send many (L1): a fan-out group executes and serialises each record once, and
// every member's message is its own id around those bytes, in its own order, whatever order the
// executions finish in.
import { buildSchema, GraphQLError, parse, type ExecutionArgs } from 'graphql';
import type { WebSocket } from 'ws';
import { describe, expect, it } from 'vitest';
import { FanoutGroup, GroupMember } from '../../src/live/fanout-group.js';
import { MAX_PENDING_EVENTS } from '../../src/live/memory-added.js';
import { documentShape } from '../../src/live/fanout.js';
import { SocketTarget, SocketWriter } from '../../src/transport/ws/socket-target.js';

interface FakeSocket {
  readyState: number;
  OPEN: number;
  CLOSED: number;
  once(): void;
  bufferedAmount: number;
  sent: string[];
  send(data: Buffer, options: { binary: boolean }): void;
}

function fakeSocket(): FakeSocket {
  return {
    readyState: 1,
    OPEN: 1,
    bufferedAmount: 0,
    sent: [],
    CLOSED: 3,
    once() {},
    send(data, options) {
      expect(options.binary).toBe(false); // a text frame, as graphql-ws clients expect
      this.sent.push(data.toString());
    },
  };
}

/** The TCP socket under a fake WebSocket: corking changes nothing a fake records. */
const rawSocket = { cork() {}, uncork() {} };

/** A schema whose `memoryAdded` waits for the test to release each record's execution. */
function controlledGroup() {
  const executions: string[] = [];
  const gates = new Map<string, () => void>();
  const schema = buildSchema(
    'type Query { ok: Boolean } type Subscription { memoryAdded: Edge } type Edge { id: ID }',
  );
  const args: ExecutionArgs = {
    schema,
    document: parse('subscription { memoryAdded { id } }'),
    fieldResolver: async (root: { id: string }, _args, _ctx, info) => {
      if (info.fieldName !== 'memoryAdded')
        return (root as unknown as Record<string, unknown>)[info.fieldName];
      executions.push(root.id);
      await new Promise<void>((resolve) => gates.set(root.id, resolve));
      return { id: root.id };
    },
  };
  const group = new FanoutGroup(args, (error) => new GraphQLError(String(error)));
  const join = (id: string) => {
    const socket = fakeSocket();
    const afterWrite: string[] = [];
    const target = new SocketTarget(new SocketWriter(), socket as unknown as WebSocket, rawSocket, id, () =>
      afterWrite.push(id),
    );
    const member = new GroupMember(group, target);
    group.members.add(member);
    return { member, socket, afterWrite };
  };
  const release = async (id: string) => {
    for (let tries = 0; !gates.has(id) && tries < 100; tries++) await new Promise((r) => setTimeout(r, 1));
    gates.get(id)!();
    await new Promise((r) => setTimeout(r, 1));
  };
  return { group, join, release, executions };
}

const record = (seq: number) => ({ id: `m${seq}`, createdAt: new Date(0), seq });

describe('fan-out group (L1)', () => {
  it('L1: each record is executed once for all members; each message is the member id around the same payload', async () => {
    const { join, release, executions } = controlledGroup();
    const a = join('1');
    const b = join('sub-"b"');
    for (const member of [a, b]) member.member.deliver(record(1));
    await release('m1');
    expect(executions).toEqual(['m1']);
    expect(a.socket.sent).toEqual([
      '{"id":"1","type":"next","payload":{"data":{"memoryAdded":{"id":"m1"}}}}',
    ]);
    expect(JSON.parse(b.socket.sent[0]!)).toEqual({
      id: 'sub-"b"',
      type: 'next',
      payload: { data: { memoryAdded: { id: 'm1' } } },
    });
    expect([...a.afterWrite, ...b.afterWrite]).toEqual(['1', 'sub-"b"']);
  });

  it('L1: an SSE stream gets the shared result, which Yoga serialises through its stringify (once per record)', async () => {
    const { group, release } = controlledGroup();
    const received: unknown[] = [];
    const member = new GroupMember(group, { send: (rendered) => received.push(rendered.result) });
    member.deliver(record(1));
    await release('m1');
    const result = received[0] as { stringify: () => string };
    expect(result).toEqual({ data: { memoryAdded: { id: 'm1' } } });
    expect(result.stringify()).toBe('{"data":{"memoryAdded":{"id":"m1"}}}');
    expect(group.render(record(1)).record!.result).toBe(result); // the same object for every stream
  });

  it('L1, L2: a record whose execution finishes first still waits for the earlier one', async () => {
    const { join, release } = controlledGroup();
    const a = join('1');
    a.member.deliver(record(1));
    a.member.deliver(record(2));
    await release('m2');
    expect(a.socket.sent).toEqual([]);
    await release('m1');
    expect(a.socket.sent.map((m) => JSON.parse(m).payload.data.memoryAdded.id)).toEqual(['m1', 'm2']);
  });

  it('L1: a member that joins later reuses a record already rendered, and a closed member or socket gets nothing', async () => {
    const { join, release, executions } = controlledGroup();
    const a = join('1');
    a.member.deliver(record(1));
    await release('m1');
    const late = join('2');
    late.member.deliver(record(1));
    expect(late.socket.sent).toHaveLength(1);
    expect(executions).toEqual(['m1']);

    late.member.close();
    a.socket.readyState = 3;
    for (const member of [a, late]) member.member.deliver(record(2));
    await release('m2');
    expect(a.socket.sent).toHaveLength(1);
    expect(late.socket.sent).toHaveLength(1);
  });
});

describe('fan-out group bounds (L1, L4)', () => {
  it("L1: records of two agents with the same seq (an admin's group follows several) are rendered apart", async () => {
    const { join, release, executions } = controlledGroup();
    const a = join('1');
    a.member.deliver({ id: 'agentA-5', createdAt: new Date(0), seq: 5 });
    await release('agentA-5');
    a.member.deliver({ id: 'agentB-5', createdAt: new Date(0), seq: 5 });
    await release('agentB-5');
    expect(executions).toEqual(['agentA-5', 'agentB-5']);
    expect(a.socket.sent.map((m) => JSON.parse(m).payload.data.memoryAdded.id)).toEqual([
      'agentA-5',
      'agentB-5',
    ]);
  });

  it('L4: a member with more than MAX_PENDING_EVENTS records waiting for execution is ended once as a slow consumer', () => {
    const { group } = controlledGroup();
    let overflows = 0;
    const member = new GroupMember(group, { send: () => {} }, () => overflows++);
    for (let seq = 1; seq <= MAX_PENDING_EVENTS + 5; seq++) member.deliver(record(seq));
    expect(overflows).toBe(1);
  });
});

describe('fan-out group key (L1, L2)', () => {
  it("L2: variables of memoryAdded's own arguments (a resumed client's after) do not split a group; those of its selection do", () => {
    const shape = documentShape(
      parse(`subscription Follow($agent: UUID, $filter: MemoryFilter, $after: String, $full: Boolean!) {
        memoryAdded(agentId: $agent, filter: $filter, after: $after) {
          cursor
          node { id content @include(if: $full) ...More }
        }
      }
      fragment More on Memory { type @skip(if: $full) }`),
    );
    expect(shape.selectionVariables).toEqual(['full']);
    const other = documentShape(parse('subscription { memoryAdded { cursor } }'));
    expect(other.selectionVariables).toEqual([]);
    expect(other.hash).not.toBe(shape.hash);
  });
});

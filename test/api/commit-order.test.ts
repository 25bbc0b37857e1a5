// L2 in commit order: a record whose transaction commits late never lands behind a cursor a client
// already holds. A test hook holds an import's transaction open after its insert while a later
// write runs (before L2 the later one committed first on PostgreSQL, and a client that read then
// skipped the held record on resume). On PGlite (one connection) the race cannot happen, so there
// the same tests prove one order, at most once, live and on resume.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importMemories } from '../../src/service/import-memories.js';
import type { Database } from '../../src/store/db.js';
import { createAgentFixture, startHarness, startRun, writeOk, type Harness } from '../support/harness.js';
import { subscribeWs, wsClient, type Edge } from '../support/live.js';

const LIST = `query($after: String) { memories(first: 50, after: $after) { edges { cursor node { id } } } }`;

let h: Harness;
let baseUrl: string;
let operatorToken: string;
let runToken: string;
let agentId: string;

beforeAll(async () => {
  h = await startHarness();
  baseUrl = `http://127.0.0.1:${(await h.server.listen(0, '127.0.0.1')).port}`;
  const fx = await createAgentFixture(h, { instruments: ['ETH'] });
  operatorToken = fx.operatorToken;
  agentId = fx.agentId;
  runToken = (await startRun(h, fx.producers.adhoc!.id)).token;
});
afterAll(async () => {
  await h.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const write = async (content: string) =>
  (await writeOk(h, runToken, { type: 'note', scope: 'AGENT', content })).id as string;

/** Subscribes from `after`, keeps what arrives within `ms`, disconnects; returns the edges. */
async function readLive(after: string | null, ms: number, until?: (edges: Edge[]) => boolean) {
  const client = wsClient(baseUrl, operatorToken);
  const sub = subscribeWs(client, { after });
  const deadline = Date.now() + ms;
  while (Date.now() < deadline && !(until?.(sub.edges) ?? false)) await sleep(20);
  await sleep(until ? 150 : 0); // a duplicate would arrive right behind
  await sub.stop();
  await client.dispose();
  expect(sub.errors).toEqual([]);
  return [...sub.edges];
}

async function newestListCursor(): Promise<string> {
  const data = await h.ok<{ memories: { edges: { cursor: string }[] } }>(LIST, {}, operatorToken);
  return data.memories.edges[0]!.cursor;
}

/**
 * Holds an import (one record, the service's own path: the write statement in a transaction, announced
 * after commit) open after its insert, runs a later write until it has committed or waits behind the
 * held one, lets `read` take the client's view, then commits the held import. Returns the client's
 * view, the order in which the two records committed, and the held record's id.
 */
async function raceWindow(tag: string, read: () => Promise<{ cursor: string; seen: string[] }>) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let inserted!: () => void;
  const insertedHeld = new Promise<void>((resolve) => (inserted = resolve));
  const holdingDb: Database = {
    ...h.db,
    sqlTransaction: (work) =>
      h.db.sqlTransaction(async (sql) => {
        const result = await work(sql);
        inserted();
        await released;
        return result;
      }),
  };
  const commitOrder: string[] = [];
  const item = {
    agentId,
    type: 'note',
    scope: 'AGENT' as const,
    content: `held ${tag}`,
    createdAt: new Date(),
  };
  const held = importMemories({ db: holdingDb, events: h.events }, [item]).then(([m]) => {
    commitOrder.push(m!.id);
    return m!.id;
  });
  await insertedHeld;
  let laterDone = false;
  const later = write(`later ${tag}`).then((id) => (commitOrder.push(id), (laterDone = true), id));
  // PostgreSQL: until the later write has committed (before L2) or waits for the held row lock.
  // PGlite: one connection, the later write waits for the held transaction either way.
  for (let i = 0; i < 250 && !laterDone && !(await waitsForLock()); i++) await sleep(20);
  const reading = read();
  await Promise.race([reading, sleep(2000)]); // PGlite reads only once the transaction ends
  release();
  const view = await reading;
  await Promise.all([held, later]);
  return { ...view, commitOrder, held: await held };
}

async function waitsForLock(): Promise<boolean> {
  if (!h.db.pools) return true;
  const { rows } = await h.db.pools.queries.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event IN ('transactionid', 'tuple')`,
  );
  return rows[0]!.n > 0;
}

describe('a record that commits late (L2)', () => {
  it('L2: a client that read live while an earlier record was still uncommitted resumes with its last cursor and receives it, once, in commit order', async () => {
    await write('base');
    const before = await newestListCursor();
    const { cursor, seen, commitOrder, held } = await raceWindow('live', async () => {
      const edges = await readLive(before, 1500, (got) => got.length > 0);
      return { cursor: edges.at(-1)?.cursor ?? before, seen: edges.map((e) => e.node.id) };
    });
    const resumed = await readLive(cursor, 5000, (edges) =>
      [...seen, ...edges.map((e) => e.node.id)].includes(held),
    );
    expect([...seen, ...resumed.map((e) => e.node.id)]).toEqual(commitOrder);
  });

  it('L2: a client that took the newest list cursor while an earlier record was still uncommitted resumes with it and receives what the list did not show, once, in commit order', async () => {
    await write('base of the list');
    const { cursor, seen, commitOrder, held } = await raceWindow('list', async () => {
      const data = await h.ok<{ memories: { edges: { cursor: string; node: { id: string } }[] } }>(
        LIST,
        {},
        operatorToken,
      );
      return { cursor: data.memories.edges[0]!.cursor, seen: data.memories.edges.map((e) => e.node.id) };
    });
    const listed = commitOrder.filter((id) => seen.includes(id));
    const resumed = await readLive(cursor, 5000, (edges) =>
      [...listed, ...edges.map((e) => e.node.id)].includes(held),
    );
    expect([...listed, ...resumed.map((e) => e.node.id)]).toEqual(commitOrder);
  });
});

describe('concurrent writes (L2, both databases)', () => {
  it('L2: concurrent writes reach a live subscriber and resuming ones once each, in one order', async () => {
    const base = await write('before the burst');
    const listed = await h.ok<{ memories: { edges: { cursor: string; node: { id: string } }[] } }>(
      LIST,
      {},
      operatorToken,
    );
    expect(listed.memories.edges[0]!.node.id).toBe(base);
    const from = listed.memories.edges[0]!.cursor;
    const client = wsClient(baseUrl, operatorToken);
    const live = subscribeWs(client, { after: from });
    await sleep(100);
    const ids = await Promise.all(Array.from({ length: 12 }, (_, i) => write(`burst ${i}`)));
    await live.waitFor(12);
    await sleep(150);
    await live.stop();
    await client.dispose();
    const order = live.edges.map((e) => e.node.id);
    expect(order).toHaveLength(12);
    expect(new Set(order)).toEqual(new Set(ids));

    const replayed = await readLive(from, 5000, (edges) => edges.length >= 12);
    expect(replayed.map((e) => e.node.id)).toEqual(order);
    const rest = await readLive(live.edges[4]!.cursor, 5000, (edges) => edges.length >= 7);
    expect(rest.map((e) => e.node.id)).toEqual(order.slice(5));
  });
});

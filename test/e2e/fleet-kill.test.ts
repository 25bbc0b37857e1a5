// L1–L3 through a crash: two real instances on one PostgreSQL, fanned out through Redis, share
// 2,000 WebSocket subscribers. A write through either reaches all of them; SIGKILL on one drops
// only its own sockets, whose clients resume on the other with their last cursor (L2) and end up
// with every record exactly once, in commit order.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  agentOverHttp,
  createPostgresDatabase,
  gqlOverHttp,
  startServiceProcess,
  type ServiceProcess,
} from '../support/processes.js';
import { WsPeer } from '../support/ws-peer.js';
import { settleOpenSubscriptions } from '../support/live.js';

const ADMIN = 'adm_fleet_kill_token_0123456789abc';
const PER_INSTANCE = 1000;
/** Sockets opened at once (a burst of thousands of handshakes would only test the accept queue). */
const OPEN_BATCH = 200;
/** 20 writes a second, alternately through A and B until B is killed, then through A. */
const WRITE_INTERVAL_MS = 50;
const WRITES_BEFORE_KILL = 40;
const WRITES_AFTER_KILL = 60;
/** A reconnecting client waits a random part of this first, as real clients back off with jitter. */
const RECONNECT_JITTER_MS = 1000;

let database: { url: string; drop(): Promise<void> };
let a: ServiceProcess;
let b: ServiceProcess;
let runToken: string;
let operatorToken: string;
const peersOfA: WsPeer[] = [];
const peersOfB: WsPeer[] = [];
/** The resumes of B's clients on A, by peer. */
const resumes = new Map<WsPeer, Promise<void>>();
/** Every record written, in write order (each write awaited: commit order too). */
const written: string[] = [];

async function write(base: string, content: string): Promise<void> {
  const { createMemory } = await gqlOverHttp<{ createMemory: { memory: { id: string } } }>(
    base,
    runToken,
    'mutation($c: String!) { createMemory(input: { type: "note", scope: AGENT, content: $c }) { ... on CreateMemorySuccess { memory { id } } } }',
    { c: content },
  );
  written.push(createMemory.memory.id);
}

async function createFixture(): Promise<void> {
  ({ runToken, operatorToken } = await agentOverHttp(a.url, ADMIN, 'fleet'));
}

/** The gauge of an instance (a process at `base`), polled until it reads `expected`. */
const gaugeReaches = (base: string, expected: number, ms: number) =>
  settleOpenSubscriptions((path) => fetch(`${base}${path}`), expected, ms);

/** The peers that do not have exactly the written records, in order (empty when all do). */
function peersMissingRecords(peers: WsPeer[], label: string): string[] {
  const expected = written.join(',');
  return peers.flatMap((peer, index) => {
    const ids = peer.edges.map((edge) => edge.id);
    if (ids.join(',') === expected) return [];
    const missing = written.filter((id) => !ids.includes(id)).length;
    const repeated = ids.length - new Set(ids).size;
    return [`${label}[${index}]: ${ids.length} edges, ${missing} missing, ${repeated} repeated`];
  });
}

/** Waits (bounded) until every peer holds `count` edges; the assertions then say who fell short. */
async function allReceived(count: number, ms: number): Promise<void> {
  await Promise.allSettled([...peersOfA, ...peersOfB].map((peer) => peer.waitForEdges(count, ms)));
}

const pause = (until: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.max(0, until - Date.now())));

function resumeOnA(peer: WsPeer): void {
  const resumed = pause(Date.now() + Math.random() * RECONNECT_JITTER_MS).then(() => peer.resume(a.url));
  resumed.catch(() => undefined); // asserted through `resumes`
  resumes.set(peer, resumed);
}

beforeAll(async () => {
  database = await createPostgresDatabase();
  const env = {
    DATABASE_URL: database.url,
    ADMIN_TOKEN: ADMIN,
    REDIS_URL: 'redis://127.0.0.1:6379',
    DEMO: '0',
    MAX_CONNECTIONS_PER_TOKEN: '5000',
  };
  a = await startServiceProcess(env); // migrates the new database
  b = await startServiceProcess(env);
  await createFixture();
}, 120_000);

afterAll(async () => {
  for (const peer of [...peersOfA, ...peersOfB]) peer.terminate();
  if (b && b.child.exitCode === null && b.child.signalCode === null) await b.stop();
  await a?.stop();
  await database?.drop();
});

describe('two instances, 2,000 subscribers, one killed (L1–L3)', () => {
  it('L1: 2,000 graphql-ws subscribers join, 1,000 on each instance', async () => {
    for (let opened = 0; opened < 2 * PER_INSTANCE; opened += OPEN_BATCH) {
      const batch = Array.from({ length: OPEN_BATCH / 2 }, () => [
        new WsPeer(operatorToken),
        new WsPeer(operatorToken, resumeOnA),
      ]);
      peersOfA.push(...batch.map(([onA]) => onA!));
      peersOfB.push(...batch.map(([, onB]) => onB!));
      await Promise.all(batch.flatMap(([onA, onB]) => [onA!.connect(a.url), onB!.connect(b.url)]));
    }
    expect(await gaugeReaches(a.url, PER_INSTANCE, 15_000)).toBe(PER_INSTANCE);
    expect(await gaugeReaches(b.url, PER_INSTANCE, 15_000)).toBe(PER_INSTANCE);
  }, 40_000);

  it('L3: a write through either instance reaches all 2,000 subscribers', async () => {
    await write(a.url, 'through A');
    await allReceived(1, 10_000);
    await write(b.url, 'through B');
    await allReceived(2, 10_000);
    expect(peersMissingRecords(peersOfA, 'A')).toEqual([]);
    expect(peersMissingRecords(peersOfB, 'B')).toEqual([]);
  }, 30_000);

  it('L2: SIGKILL drops only the killed instance’s sockets; its clients resume on the other with nothing lost or repeated', async () => {
    const started = Date.now();
    let killed: Promise<{ code: number | null }> | undefined;
    for (let i = 0; i < WRITES_BEFORE_KILL + WRITES_AFTER_KILL; i++) {
      await pause(started + i * WRITE_INTERVAL_MS);
      // Killed between two writes, with writes going on: its clients reconnect while A writes.
      if (i === WRITES_BEFORE_KILL) killed = b.stop('SIGKILL');
      await write(i < WRITES_BEFORE_KILL && i % 2 === 1 ? b.url : a.url, `record ${i}`);
    }
    // The scenario ran as intended: every one of B's clients lost its socket while A was writing.
    expect(peersOfB.filter((peer) => peer.closes.length === 0).length).toBe(0);
    expect((await killed)?.code).toBe(null);
    await allReceived(written.length, 20_000);
    const settled = await Promise.allSettled(
      peersOfB.map((peer) => resumes.get(peer) ?? Promise.reject(new Error('never resumed'))),
    );

    expect(peersMissingRecords(peersOfA, 'A')).toEqual([]);
    expect(peersMissingRecords(peersOfB, 'B')).toEqual([]);
    // A's clients were not disturbed; each of B's saw its socket drop (1006: no close frame) once
    // and resumed on A, whose gauge now counts all 2,000.
    expect(peersOfA.filter((peer) => peer.closes.length > 0 || !peer.open).length).toBe(0);
    expect(new Set(peersOfB.map((peer) => peer.closes.join(',')))).toEqual(new Set(['1006']));
    expect(settled.filter((outcome) => outcome.status !== 'fulfilled')).toEqual([]);
    expect(peersOfB.filter((peer) => !peer.open).length).toBe(0);
    expect([...peersOfA, ...peersOfB].flatMap((peer) => peer.errors)).toEqual([]);
    expect(await gaugeReaches(a.url, 2 * PER_INSTANCE, 10_000)).toBe(2 * PER_INSTANCE);
  }, 60_000);
});

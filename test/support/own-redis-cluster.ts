// A Redis Cluster of its own (D4): three masters, no replicas, no persistence, on private ports, so a
// test may kill a node and start it again from its nodes.conf without touching the machine's shared
// Redis at 6379. Nodes run daemonized and are stopped by their pid files.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { answersPing } from './own-redis.js';
import { portIsFree } from './ports.js';

const run = promisify(execFile);
const MASTERS = 3;
/** Client ports are drawn from here; each node's bus port is its port + 10000. */
const PORT_RANGE = { from: 20_000, to: 29_000 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface OwnRedisCluster {
  ports: number[];
  /** REDIS_CLUSTER_NODES for the service: every node, comma-separated. */
  nodes: string;
  /** A plain connection to node `index` (CLUSTER …, PUBSUB SHARDCHANNELS …), opened on first use. */
  client(index: number): Redis;
  /** The index of the node that serves `key`'s slot. */
  ownerOf(key: string): Promise<number>;
  /** SIGKILL by its pid file: the node vanishes as in a crash. */
  kill(index: number): Promise<void>;
  /** Starts the node again on its port with its nodes.conf; resolves once every node says cluster_state:ok. */
  restart(index: number): Promise<void>;
  /** Stops every node by its pid file and removes their folders; safe to call more than once. */
  remove(): Promise<void>;
}

/** `count` consecutive ports whose bus ports are free too (bounded tries). */
async function freeClusterPorts(count: number): Promise<number[]> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = PORT_RANGE.from + Math.floor(Math.random() * (PORT_RANGE.to - PORT_RANGE.from));
    const ports = Array.from({ length: count }, (_, i) => base + i);
    const free = await Promise.all(ports.flatMap((port) => [portIsFree(port), portIsFree(port + 10_000)]));
    if (free.every(Boolean)) return ports;
  }
  throw new Error('no free ports for a Redis Cluster');
}

function pidOf(dir: string): number | null {
  const file = path.join(dir, 'redis.pid');
  if (!existsSync(file)) return null;
  const pid = Number(readFileSync(file, 'utf8').trim());
  return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
}

function killByPidFile(dir: string): void {
  const pid = pidOf(dir);
  if (pid === null) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Polls `check` every 100 ms until it holds; throws after `ms`. */
async function until(what: string, check: () => Promise<boolean>, ms: number): Promise<void> {
  for (const deadline = Date.now() + ms; !(await check().catch(() => false)); await sleep(100)) {
    if (Date.now() > deadline) throw new Error(`Redis Cluster: timed out after ${ms} ms waiting for ${what}`);
  }
}

export async function startOwnRedisCluster(): Promise<OwnRedisCluster> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'memory-redis-cluster-'));
  const ports = await freeClusterPorts(MASTERS);
  const dirs = ports.map((port) => path.join(root, String(port)));
  const clients = new Map<number, Redis>();
  const killAll = () => dirs.forEach(killByPidFile);
  process.once('exit', killAll);

  const logTail = (index: number) => {
    const file = path.join(dirs[index]!, 'redis.log');
    return existsSync(file) ? readFileSync(file, 'utf8').split('\n').slice(-20).join('\n') : '';
  };
  const self: OwnRedisCluster = {
    ports,
    nodes: ports.map((port) => `127.0.0.1:${port}`).join(','),
    client(index) {
      let client = clients.get(index);
      if (!client) {
        client = new Redis({ host: '127.0.0.1', port: ports[index]!, maxRetriesPerRequest: 2 });
        client.on('error', () => undefined); // a killed node: commands to it fail, the test says why
        clients.set(index, client);
      }
      return client;
    },
    async ownerOf(key) {
      // Asked of the first node that answers (one may be down).
      for (const index of ports.keys()) {
        const answer = await Promise.all([
          self.client(index).cluster('KEYSLOT', key),
          self.client(index).cluster('SLOTS'),
        ]).catch(() => null);
        if (!answer) continue;
        const [slot, ranges] = answer;
        const owner = ranges.find(([from, to]) => from <= slot && slot <= to)?.[2]?.[1];
        return ports.indexOf(Number(owner));
      }
      throw new Error('Redis Cluster: no node answers');
    },
    async kill(index) {
      killByPidFile(dirs[index]!);
      await until(`node ${ports[index]} to stop`, async () => !(await answersPing(ports[index]!)), 10_000);
    },
    async restart(index) {
      await serve(index);
      await allOk();
    },
    async remove() {
      for (const client of clients.values()) client.disconnect();
      clients.clear();
      killAll();
      await Promise.all(
        ports.map((port) => until(`node ${port} to stop`, async () => !(await answersPing(port)), 10_000)),
      );
      process.removeListener('exit', killAll);
      await rm(root, { recursive: true, force: true });
    },
  };

  async function serve(index: number): Promise<void> {
    const [port, dir] = [ports[index]!, dirs[index]!];
    await mkdir(dir, { recursive: true });
    // --daemonize: the command returns once the server forked; it is up when it answers PING.
    await run(
      'redis-server',
      [
        ...['--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes'],
        ...['--cluster-config-file', path.join(dir, 'nodes.conf'), '--dir', dir],
        ...['--save', '', '--appendonly', 'no', '--daemonize', 'yes'],
        ...['--pidfile', path.join(dir, 'redis.pid'), '--logfile', path.join(dir, 'redis.log')],
      ],
      { timeout: 10_000 },
    );
    await until(`node ${port} to answer`, () => answersPing(port), 10_000).catch((error: Error) => {
      throw new Error(`${error.message}\n${logTail(index)}`);
    });
  }

  async function allOk(): Promise<void> {
    for (const [index, port] of ports.entries()) {
      await until(
        `node ${port} to report cluster_state:ok`,
        async () => /cluster_state:ok/.test(String(await self.client(index).cluster('INFO'))),
        30_000,
      );
    }
  }

  try {
    await Promise.all(ports.map((_, index) => serve(index)));
    await run(
      'redis-cli',
      ['--cluster', 'create', ...self.nodes.split(','), '--cluster-replicas', '0', '--cluster-yes'],
      { timeout: 30_000 },
    );
    await allOk();
  } catch (error) {
    await self.remove();
    throw error;
  }
  return self;
}

// The processes of the fanout bench: the servers under test (service instances, or the bare `ws`
// baseline) with what writes one record to them, and the load-generator processes.
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ClientCommand } from './fanout-client.js';
import { collectGarbage } from './inspector.js';
import { agentOverHttp } from '../test/support/processes.js';
import { freePort } from '../test/support/ports.js';
import {
  BENCH_ADMIN_TOKEN,
  benchDatabase,
  gqlRequest,
  postJson,
  startListeningProcess,
  startServiceProcess,
} from './support.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const CLOCK_TICKS_PER_SECOND = 100;

export interface Client {
  request<T>(command: ClientCommand): Promise<T>;
  close(): Promise<void>;
}

export function forkClient(): Client {
  const child = fork(path.join(here, 'fanout-client.ts'), [], { execArgv: ['--import', 'tsx'] });
  return {
    request: <T>(command: ClientCommand) =>
      new Promise<T>((resolve, reject) => {
        child.once('message', (message: T & { error?: string }) =>
          message.error ? reject(new Error(message.error)) : resolve(message),
        );
        child.send(command);
      }),
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.send({ cmd: 'close' } satisfies ClientCommand);
      }),
  };
}

function rssMb(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
}

/** The RSS of all of a fleet's servers, in MB. */
export const fleetRssMb = (fleet: Fleet): number =>
  fleet.servers.reduce((sum, server) => sum + rssMb(server.pid), 0);

/** CPU seconds (user + system) a process has used. */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

/** The servers under test and how to write the n-th record to them. */
export interface Fleet {
  /** `collectGarbage`: a full collection in that server, resolving with its V8 heap in use (bytes); only when asked for. */
  servers: { url: string; pid: number; collectGarbage?: () => Promise<number> }[];
  /** The token the subscribers send (the baseline ignores it). */
  subscriberToken: string;
  write(n: number): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * One agent on `instances` service processes (over Redis when several); writes go to them in turn.
 * `inspect`: each server runs with its inspector on a free port, so the bench can collect its garbage.
 */
export async function serviceFleet(databaseUrl: string, instances: number, inspect = false): Promise<Fleet> {
  const url = await benchDatabase(databaseUrl, 'memory_bench_fanout', true);
  const env = {
    MAX_CONNECTIONS_PER_TOKEN: '20000',
    ...(instances > 1 ? { REDIS_URL: process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379' } : {}),
  };
  const services: (Awaited<ReturnType<typeof startServiceProcess>> & { inspector?: number })[] = [];
  for (let i = 0; i < instances; i++) {
    const inspector = inspect ? await freePort() : undefined;
    const flags = inspector ? [`--inspect=127.0.0.1:${inspector}`] : [];
    services.push({ ...(await startServiceProcess(url, env, false, flags)), inspector });
  }
  const agent = await agentOverHttp(services[0]!.url, BENCH_ADMIN_TOKEN, 'fanout');
  return {
    servers: services.map(({ url, child, inspector }) => ({
      url,
      pid: child.pid!,
      collectGarbage: inspector ? () => collectGarbage(inspector) : undefined,
    })),
    subscriberToken: agent.operatorToken,
    write: (n) =>
      gqlRequest(
        services[n % services.length]!.url,
        agent.runToken,
        'mutation($c: String!) { createMemory(input: { type: "tick", scope: AGENT, content: $c }) { __typename } }',
        { c: `tick ${n}` },
      ),
    close: async () => {
      for (const service of services) await service.close();
    },
  };
}

/** The bare `ws` broadcaster (ws-baseline.ts) in its own process: the floor of the same run. */
export async function baselineFleet(): Promise<Fleet> {
  const baseline = await startListeningProcess(['--import', 'tsx', path.join(here, 'ws-baseline.ts')]);
  return {
    servers: [{ url: baseline.url, pid: baseline.pid }],
    subscriberToken: 'baseline',
    write: () => postJson(`${baseline.url}/broadcast`, {}),
    close: baseline.close,
  };
}

// A private Redis (no persistence) as a child process on a free port, so a test may stop and restart
// it without touching the machine's shared Redis at 6379.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { freePort } from './ports.js';

export interface OwnRedis {
  port: number;
  url: string;
  /** Starts redis-server on the same port (after stop(); startOwnRedis already started it) and waits until it answers PING. */
  start(): Promise<void>;
  /** SIGKILL: Redis vanishes as in a crash. */
  stop(): Promise<void>;
  /** Stops it if running; safe to call more than once. */
  remove(): Promise<void>;
}

/** Whether a Redis answers PING on 127.0.0.1:`port` (within 500 ms). */
export async function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (chunk) => done(chunk.toString().startsWith('+PONG')));
  });
}

export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  let output = '';
  const killOnExit = () => child?.kill('SIGKILL');
  process.once('exit', killOnExit);
  const self: OwnRedis = {
    port,
    url: `redis://127.0.0.1:${port}`,
    async start() {
      // A second server on the port would fail to bind while the first answers PING, and the first
      // would then outlive stop(): refuse instead.
      if (child && child.exitCode === null && child.signalCode === null)
        throw new Error(`redis-server on ${port} is already running`);
      const server = spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--save',
          '',
          '--appendonly',
          'no',
          '--daemonize',
          'no',
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      child = server;
      server.stdout!.on('data', (c: Buffer) => (output += c.toString()));
      server.stderr!.on('data', (c: Buffer) => (output += c.toString()));
      for (let attempt = 0; attempt < 100; attempt++) {
        if (server.exitCode !== null) break;
        if (await answersPing(port)) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`redis-server did not start on ${port}:\n${output}`);
    },
    async stop() {
      const server = child;
      child = null;
      if (!server || server.exitCode !== null || server.signalCode !== null) return;
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGKILL');
      await exited;
    },
    async remove() {
      await self.stop();
      process.removeListener('exit', killOnExit);
    },
  };
  await self.start();
  return self;
}

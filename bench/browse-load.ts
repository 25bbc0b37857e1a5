// The browse bench's load generator, in its own process (forked by browse.ts): autocannon's
// programmatic API against one server for one round, answering with the figures and its own CPU.
import { createRequire } from 'node:module';

export interface LoadCommand {
  url: string;
  body: string;
  headers: Record<string, string>;
  connections: number;
  seconds: number;
}

export interface LoadReport {
  requests: number;
  seconds: number;
  p50: number;
  p99: number;
  /** Responses that were not 2xx, plus socket errors (timeouts among them). */
  failures: number;
  /** What the failures were, e.g. `503×2, timeouts×1` (empty when none). */
  failureKinds: string;
  /** CPU seconds this process used during the round. */
  cpuSeconds: number;
}

interface AutocannonResult {
  requests: { total: number };
  duration: number;
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodeStats: Record<string, { count: number }>;
}
// autocannon ships no types; this is the part of its API the bench uses.
const autocannon = createRequire(import.meta.url)('autocannon') as (options: {
  url: string;
  method: 'POST';
  body: string;
  headers: Record<string, string>;
  connections: number;
  duration: number;
}) => Promise<AutocannonResult>;

async function run(command: LoadCommand): Promise<LoadReport> {
  const before = process.cpuUsage();
  const result = await autocannon({
    url: command.url,
    method: 'POST',
    body: command.body,
    headers: { 'content-type': 'application/json', ...command.headers },
    connections: command.connections,
    duration: command.seconds,
  });
  const cpu = process.cpuUsage(before);
  return {
    requests: result.requests.total,
    seconds: result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failures: result.non2xx + result.errors,
    failureKinds: failureKinds(result),
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
  };
}

function failureKinds(result: AutocannonResult): string {
  const kinds = Object.entries(result.statusCodeStats)
    .filter(([status]) => !status.startsWith('2'))
    .map(([status, { count }]) => `${status}×${count}`);
  // autocannon counts a timeout among its errors too.
  const socketErrors = result.errors - result.timeouts;
  if (socketErrors) kinds.push(`socket errors×${socketErrors}`);
  if (result.timeouts) kinds.push(`timeouts×${result.timeouts}`);
  return kinds.join(', ');
}

process.on('message', (command: LoadCommand | 'close') => {
  if (command === 'close') return void process.exit(0);
  run(command).then(
    (report) => process.send!(report),
    (error: Error) => process.send!({ error: error.message }),
  );
});

// The bench process died: no load generator is left running behind it.
process.on('disconnect', () => process.exit(1));

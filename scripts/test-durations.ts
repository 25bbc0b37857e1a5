// npm run test:durations: rewrites test/durations.json (the order test files start in, see
// test/support/sequencer.ts) from the duration cache of the last vitest run on this clone — run it
// after a full `npm run test:ci`, so every project's files have a duration measured in one run.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DURATIONS_FILE } from '../test/support/sequencer.js';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const cacheDir = path.join(root, 'node_modules/.vite/vitest');
const caches = readdirSync(cacheDir).map((dir) => path.join(cacheDir, dir, 'results.json'));
if (caches.length !== 1)
  throw new Error(`expected one vitest results cache in ${cacheDir}, found ${caches.length}`);
const { results } = JSON.parse(readFileSync(caches[0]!, 'utf8')) as {
  results: [string, { duration?: number }][];
};
const durations = Object.fromEntries(
  results
    .filter(([, result]) => typeof result.duration === 'number')
    .map(([key, result]) => [key, Math.round(result.duration! / 100) / 10] as const)
    .sort(([a], [b]) => a.localeCompare(b)),
);
writeFileSync(path.join(root, DURATIONS_FILE), `${JSON.stringify(durations, null, 2)}\n`);
console.log(`${Object.keys(durations).length} files' durations written to ${DURATIONS_FILE}`);

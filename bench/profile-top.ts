// `npx tsx bench/profile-top.ts <file.cpuprofile> [n]`: the n (default 25) functions with the most
// self time in a V8 CPU profile (BENCH_PROFILE=<dir> writes one of the service per bench run), and
// the self time per package / source folder, so a profile can be summarised in bench/README.md.
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, count = '25'] = process.argv.slice(2);
if (!file) throw new Error('usage: profile-top.ts <file.cpuprofile> [n]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));

/** Where a frame comes from: a package under node_modules, a folder of src/, or V8 itself. */
function origin(url: string): string {
  if (!url) return '(native / V8)';
  // The innermost package (a dependency nested in another's node_modules counts as itself).
  const modules = /.*node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) return modules[1]!;
  const source = /\/(src\/[^/]+)/.exec(url);
  if (source) return source[1]!;
  return url.startsWith('node:') ? 'node internals' : url;
}

const selfByFrame = new Map<string, number>();
const selfByOrigin = new Map<string, number>();
let total = 0;
profile.samples.forEach((id, index) => {
  const delta = profile.timeDeltas[index] ?? 0;
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  if (functionName === '(idle)') return; // waiting, not working
  const frame = `${functionName || '(anonymous)'} ${url.replace(/^.*node_modules\//, '')}:${lineNumber + 1}`;
  selfByFrame.set(frame, (selfByFrame.get(frame) ?? 0) + delta);
  selfByOrigin.set(origin(url), (selfByOrigin.get(origin(url)) ?? 0) + delta);
  total += delta;
});

const top = (map: Map<string, number>, n: number) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, us]) => `${((100 * us) / total).toFixed(1).padStart(5)} %  ${name}`)
    .join('\n');
console.log(
  `${(total / 1e6).toFixed(1)} s busy\n\nself time by function:\n${top(selfByFrame, Number(count))}`,
);
console.log(`\nself time by origin:\n${top(selfByOrigin, 20)}`);

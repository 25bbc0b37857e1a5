// The order files start in: within a group (sequence.groupOrder: the load tests last), the longest
// first, whatever their project. Vitest's own order runs project by project (`db`, `db-postgres`,
// then `once`), so the slowest files — W5's process kills, the executed README, the browser suites,
// all in `once` — started last and ran beside each other at the end, with one worker busy and the
// others idle. A fresh clone has no duration cache, so the durations come from a committed file,
// test/durations.json (`npm run test:durations` rewrites it from the last run's cache). A file it
// does not name starts first, as vitest does with a file it has never run.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** test/durations.json: seconds per `project:path`, as the last full `npm run test:ci` measured them. */
export const DURATIONS_FILE = 'test/durations.json';

/** The key of a file in test/durations.json (and in vitest's results cache). */
export function durationKey(project: string, root: string, moduleId: string): string {
  return `${project}:${path.relative(root, moduleId).split(path.sep).join('/')}`;
}

export function readDurations(root: string): Record<string, number> {
  return JSON.parse(readFileSync(path.join(root, DURATIONS_FILE), 'utf8')) as Record<string, number>;
}

/** `files` in starting order: by group, then the longest (unknown: longest of all) first. */
export function longestFirst<T>(
  files: readonly T[],
  group: (file: T) => number,
  key: (file: T) => string,
  durations: Readonly<Record<string, number>>,
): T[] {
  const seconds = (file: T) => durations[key(file)] ?? Number.POSITIVE_INFINITY;
  return [...files].sort((a, b) => group(a) - group(b) || seconds(b) - seconds(a));
}

export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    return longestFirst(
      files,
      (spec) => spec.project.config.sequence.groupOrder,
      (spec) => durationKey(spec.project.name, root, spec.moduleId),
      readDurations(root),
    );
  }
}

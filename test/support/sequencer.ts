// The order files start in: within a group (sequence.groupOrder: the load tests last), the project
// with the slowest files first, and its longest files first. Vitest's own order runs the projects by
// name (`db`, `db-postgres`, then `once`), so the slowest files — W5's process kills, the executed
// README, the browser suites, all in `once` — started last and ran beside each other at the end,
// with one worker busy and the others idle. A fresh clone has no duration cache, so the durations come from a committed file,
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

/**
 * `files` in starting order: by group; then project by project, the project with the longest file
 * first; within a project the longest first (unknown: longest of all). Projects are not interleaved:
 * a worker runs one project's files, so every switch starts a worker that imports the module graph
 * again (interleaved, the run's imports took 225 s instead of 67).
 */
export function longestFirst<T>(
  files: readonly T[],
  group: (file: T) => number,
  project: (file: T) => string,
  key: (file: T) => string,
  durations: Readonly<Record<string, number>>,
): T[] {
  const seconds = (file: T) => durations[key(file)] ?? Number.POSITIVE_INFINITY;
  const longest = new Map<string, number>();
  for (const file of files)
    longest.set(project(file), Math.max(longest.get(project(file)) ?? 0, seconds(file)));
  const projectRank = (file: T) => longest.get(project(file))!;
  return [...files].sort(
    (a, b) =>
      group(a) - group(b) ||
      projectRank(b) - projectRank(a) ||
      project(a).localeCompare(project(b)) ||
      seconds(b) - seconds(a),
  );
}

export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    return longestFirst(
      files,
      (spec) => spec.project.config.sequence.groupOrder,
      (spec) => spec.project.name,
      (spec) => durationKey(spec.project.name, root, spec.moduleId),
      readDurations(root),
    );
  }
}

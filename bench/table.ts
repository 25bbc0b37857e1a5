// The bench's one table: every scenario's rows as ratios against baselines measured in the same run,
// written to bench/README.md and the README's Performance section between markers, and compared
// with the table recorded there before (a ratio more than 10 % worse prints a REGRESSION line).
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { format, resolveConfig } from 'prettier';

/** One row of the table: a ratio against a baseline of the same run, and the figures behind it. */
export interface BenchRow {
  /** The row's stable name: the table's first column, and what a later run compares with. */
  row: string;
  /** null: a row with no baseline in the run (its figures stand alone). */
  ratio: number | null;
  /** What the ratio compares with (`PostGraphile req/s`, `raw SQL ops/s`, `bare ws CPU/delivery`). */
  of: string;
  /** `higher`: a larger ratio is better (throughput); `lower`: a smaller one (latency, CPU). */
  better: 'higher' | 'lower';
  /** The row's own figures (rate, p50/p99, CPU), as a short text. */
  figures: string;
}

/** What a scenario reports: its lines for stdout and its rows for the table. */
export interface ScenarioReport {
  lines: string[];
  rows: BenchRow[];
}

export const START_MARKER =
  '<!-- bench-table:start (written by `npm run bench`; edit the code, not this) -->';
export const END_MARKER = '<!-- bench-table:end -->';

/** A ratio more than this much worse than the recorded one is a regression. */
const TOLERANCE = 0.1;

export interface RunFacts {
  date: string;
  commit: string;
  loadBefore: string;
  loadAfter: string;
}

const loadAverage = () =>
  os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');

/** The facts a table is recorded with, read when the run starts (`finish` reads the load after). */
export function startRun(): { facts: RunFacts; finish(): RunFacts } {
  const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8' }).trim();
  let commit = 'unknown';
  try {
    commit = git('rev-parse', '--short', 'HEAD');
    if (git('status', '--porcelain', '--untracked-files=no', '--', 'src', 'bench', 'prisma'))
      commit += ' + uncommitted changes';
  } catch {
    // not a git checkout: the table says so
  }
  const facts: RunFacts = {
    date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
    commit,
    loadBefore: loadAverage(),
    loadAfter: '',
  };
  return { facts, finish: () => ({ ...facts, loadAfter: loadAverage() }) };
}

const escapeCell = (text: string) => text.replaceAll('|', '\\|');

/** The table as Markdown, headed by when, at which commit and under what load it was measured. */
export function renderTable(rows: BenchRow[], facts: RunFacts): string {
  return [
    `Measured ${facts.date} at \`${facts.commit}\`; load average (1, 5, 15 min) ${facts.loadBefore} ` +
      `before, ${facts.loadAfter} after.`,
    '',
    '| row | ratio | of | figures |',
    '| --- | ---: | --- | --- |',
    ...rows.map(
      (row) =>
        `| ${escapeCell(row.row)} | ${row.ratio === null ? '—' : `${row.ratio.toFixed(2)}x`} | ` +
        `${escapeCell(row.of)}${row.better === 'lower' && row.ratio !== null ? ' (lower is better)' : ''} | ` +
        `${escapeCell(row.figures)} |`,
    ),
  ].join('\n');
}

/**
 * The README's rows: each scenario's goal row. The equal-work, PGlite and growth rows, the bare `ws`
 * baseline's own rows and fan-out at 20 writes/s are recorded only in bench/README.md (and growth's
 * in docs/performance.md), which the next run compares with: the README stays a five-minute read.
 */
export const isHeadline = (row: BenchRow): boolean =>
  !/, equal work$|\(PGlite\)|^growth: |^fanout: bare ws baseline|, 20 writes\/s$|^write: WRITE_FORM/.test(
    row.row,
  );

/** The README's table: the headline rows, and where the others are. */
export function renderHeadlineTable(rows: BenchRow[], facts: RunFacts): string {
  const headline = rows.filter(isHeadline);
  const others = rows.length - headline.length;
  const rest = others
    ? `\n\n${others} more rows (equal work, PGlite, growth), with the baseline's, 20 writes/s and WRITE_FORM: [bench/README.md](bench/README.md#latest-run-every-row).`
    : '';
  return renderTable(headline, facts) + rest;
}

/** The rows of a table `renderTable` wrote (ratio and name only), keyed by row name. */
export function parseTable(markdown: string): Map<string, number> {
  const rows = new Map<string, number>();
  for (const line of markdown.split('\n')) {
    const cells = line
      .split(/(?<!\\)\|/)
      .slice(1, -1)
      .map((cell) => cell.trim());
    const ratio = /^(\d+(?:\.\d+)?)x$/.exec(cells[1] ?? '');
    if (cells.length >= 4 && ratio) rows.set(cells[0]!.replaceAll('\\|', '|'), Number(ratio[1]));
  }
  return rows;
}

/** The recorded table between the markers of `document` (empty when there is none). */
export function recordedTable(document: string): string {
  const start = document.indexOf(START_MARKER);
  const end = document.indexOf(END_MARKER);
  return start >= 0 && end > start ? document.slice(start + START_MARKER.length, end) : '';
}

/** `document` with the text between its markers replaced by `table`; throws when the markers are missing. */
export function withTable(document: string, table: string): string {
  const start = document.indexOf(START_MARKER);
  const end = document.indexOf(END_MARKER);
  if (start < 0 || end < start) throw new Error('the bench table markers are missing');
  return `${document.slice(0, start + START_MARKER.length)}\n\n${table}\n\n${document.slice(end)}`;
}

/** A REGRESSION line for each row whose ratio is more than 10 % worse than the recorded one. */
export function regressions(rows: BenchRow[], recorded: Map<string, number>): string[] {
  const lines: string[] = [];
  for (const row of rows) {
    const before = recorded.get(row.row);
    if (row.ratio === null || before === undefined || before <= 0) continue;
    const worse =
      row.better === 'higher' ? row.ratio < before * (1 - TOLERANCE) : row.ratio > before / (1 - TOLERANCE);
    if (worse)
      lines.push(
        `REGRESSION: ${row.row}: ${row.ratio.toFixed(2)}x of ${row.of}, recorded ${before.toFixed(2)}x ` +
          `(more than ${TOLERANCE * 100} % ${row.better === 'higher' ? 'lower' : 'higher'})`,
      );
  }
  return lines;
}

/**
 * Reads `path`'s recorded table (for the comparison) and, when `table` is given, writes it in its
 * place; `check` throws at once when the file has no markers to write between.
 */
export async function recordTable(
  path: string,
  table: string | null,
  check = false,
): Promise<Map<string, number>> {
  const document = await readFile(path, 'utf8');
  if (check) withTable(document, '');
  const recorded = parseTable(recordedTable(document));
  if (table !== null) {
    // Written as Prettier formats it, so `npm run lint` stays clean after a run.
    const options = { ...(await resolveConfig(path)), filepath: path };
    await writeFile(path, await format(withTable(document, table), options));
  }
  return recorded;
}

/** Several reports as one, in order. */
export function mergeReports(reports: ScenarioReport[]): ScenarioReport {
  return { lines: reports.flatMap((r) => r.lines), rows: reports.flatMap((r) => r.rows) };
}

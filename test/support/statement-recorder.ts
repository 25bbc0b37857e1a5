// Records the statements the service sends while a piece of work runs, as short stable lines for
// inline snapshots (round trips proven by tests; `vitest -u` rewrites them when a count changes).
import type { ObservedStatement, StatementListener } from '../../src/store/statement-observer.js';

export interface RoundTrips {
  count: number;
  statements: string[];
}

export class StatementRecorder {
  private log: ObservedStatement[] | null = null;
  /** Every statement recorded so far, with its values (D3: EXPLAINed on the partitioned layout). */
  readonly recorded: ObservedStatement[] = [];

  readonly listener: StatementListener = (statement) => {
    if (!this.log) return;
    this.log.push(statement);
    this.recorded.push(statement);
  };

  /** The statements sent while `work` runs (nothing else may talk to the database meanwhile). */
  async during(work: () => Promise<unknown>): Promise<RoundTrips> {
    if (this.log) throw new Error('already recording');
    const log: ObservedStatement[] = [];
    this.log = log;
    try {
      await work();
    } finally {
      this.log = null;
    }
    const statements = log.map(describeStatement);
    return { count: statements.length, statements };
  }
}

/** Longer statements are cut here: a line names a statement, it does not reproduce it. */
const MAX_LINE = 200;

/**
 * One line per statement: where it came from and its SQL without comments, layout, quotes or
 * Prisma's schema and table qualifiers, with `$` for every parameter and `IN ($…)` for a list of
 * them (its length follows the data), and a WITH statement reduced to its CTE names and final query.
 */
export function describeStatement(statement: ObservedStatement): string {
  const sql = statement.text
    .replace(/--[^\n]*/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/"public"\."\w+"\.(?=")/g, '')
    .replace(/"public"\./g, '')
    .replace(/"/g, '')
    .replace(/\$\d+/g, '$')
    .replace(/\bIN \(\$(?:, ?\$)*\)/g, 'IN ($…)');
  const line = `${statement.via}: ${withCteNames(sql)}`;
  return line.length > MAX_LINE ? `${line.slice(0, MAX_LINE - 1)}…` : line;
}

/** `WITH a AS (…), b AS MATERIALIZED (…) SELECT …` → `WITH a, b SELECT …`. */
function withCteNames(sql: string): string {
  const head = /^WITH (RECURSIVE )?/i.exec(sql);
  if (!head) return sql;
  const names: string[] = [];
  let at = head[0].length;
  for (;;) {
    const cte = /^(\w+) AS (?:(?:NOT )?MATERIALIZED )?\(/i.exec(sql.slice(at));
    if (!cte) return sql; // not a shape this summary knows: keep the statement as it is
    names.push(cte[1]!);
    at = closingParen(sql, at + cte[0].length - 1);
    if (at < 0) return sql;
    const rest = sql.slice(at + 1).trimStart();
    if (!rest.startsWith(',')) return `${head[0]}${names.join(', ')} ${rest}`;
    at = sql.length - rest.length + 1;
    while (sql[at] === ' ') at++;
  }
}

/** The index of the parenthesis closing the one at `open` (string literals hold none here), or -1. */
function closingParen(sql: string, open: number): number {
  let depth = 0;
  for (let i = open; i < sql.length; i++) {
    if (sql[i] === '(') depth++;
    else if (sql[i] === ')' && --depth === 0) return i;
  }
  return -1;
}

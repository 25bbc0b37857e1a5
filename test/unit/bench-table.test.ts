// The bench's table: rendered, recorded between markers, read back, and compared (a REGRESSION line
// for a ratio more than 10 % worse than the recorded one, in the direction the row calls better).
import { describe, expect, it } from 'vitest';
import {
  END_MARKER,
  START_MARKER,
  parseTable,
  recordedTable,
  regressions,
  renderHeadlineTable,
  renderTable,
  withTable,
  type BenchRow,
} from '../../bench/table.js';

const facts = {
  date: '2026-12-01 20:00 UTC',
  commit: 'abc1234',
  loadBefore: '0.10 0.20 0.30',
  loadAfter: '1.00 1.10 1.20',
};
const rows: BenchRow[] = [
  {
    row: 'browse: first page, all types',
    ratio: 0.8,
    of: 'PostGraphile req/s',
    better: 'higher',
    figures: '400 req/s',
  },
  {
    row: 'fanout: 1000 subscribers, 50 writes/s',
    ratio: 1.2,
    of: 'bare ws CPU per delivery',
    better: 'lower',
    figures: 'p99 50 ms | ok',
  },
  { row: 'fanout: 10000 idle sockets', ratio: null, of: 'none', better: 'lower', figures: '9 KB' },
];

describe('bench table', () => {
  it("the README's table holds the goal rows and says where the equal-work, PGlite and growth rows are", () => {
    const all: BenchRow[] = [
      ...rows,
      { ...rows[0]!, row: 'browse: first page, all types, equal work' },
      { ...rows[0]!, row: 'browse (PGlite): first page, all types' },
      { ...rows[0]!, row: 'growth: context, 8 M vs 0.5 M records', better: 'lower' },
    ];
    const readme = renderHeadlineTable(all, facts);
    expect([...parseTable(readme).keys()]).toEqual([
      'browse: first page, all types',
      'fanout: 1000 subscribers, 50 writes/s',
    ]);
    expect(readme).toContain('3 more rows (equal work, PGlite, growth)');
    expect(renderHeadlineTable(rows, facts)).toBe(renderTable(rows, facts));
  });

  it('renders a table with date, commit and load that reads back as the same ratios', () => {
    const table = renderTable(rows, facts);
    expect(table).toContain('2026-12-01 20:00 UTC');
    expect(table).toContain('`abc1234`');
    expect(table).toContain('0.10 0.20 0.30 before, 1.00 1.10 1.20 after');
    expect([...parseTable(table)]).toEqual([
      ['browse: first page, all types', 0.8],
      ['fanout: 1000 subscribers, 50 writes/s', 1.2],
    ]);
  });

  it('replaces only the text between the markers, and finds it again', () => {
    const document = `# Bench\n\nbefore\n${START_MARKER}\nold table\n${END_MARKER}\nafter\n`;
    const written = withTable(document, renderTable(rows, facts));
    expect(written.startsWith('# Bench\n\nbefore\n')).toBe(true);
    expect(written.endsWith(`${END_MARKER}\nafter\n`)).toBe(true);
    expect(written).not.toContain('old table');
    expect(parseTable(recordedTable(written)).get('browse: first page, all types')).toBe(0.8);
    expect(() => withTable('# no markers', 'x')).toThrow(/markers/);
  });

  it('prints a REGRESSION line for a ratio more than 10 % worse, in the direction the row calls better', () => {
    const recorded = new Map([
      ['browse: first page, all types', 0.9], // 0.8 < 0.9 × 0.9 = 0.81: regression
      ['fanout: 1000 subscribers, 50 writes/s', 1.1], // 1.2 ≤ 1.1 / 0.9 = 1.22: within 10 %
    ]);
    const found = regressions(rows, recorded);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^REGRESSION: browse: first page, all types: 0\.80x .* recorded 0\.90x/);
    const cpuWorse = regressions(rows, new Map([['fanout: 1000 subscribers, 50 writes/s', 1.0]]));
    expect(cpuWorse).toHaveLength(1);
    expect(regressions(rows, new Map([['browse: first page, all types', 0.85]]))).toEqual([]);
    // A row the recorded table does not have, or one without a ratio, is never a regression.
    expect(regressions(rows, new Map([['fanout: 10000 idle sockets', 0.01]]))).toEqual([]);
  });
});

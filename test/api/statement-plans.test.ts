// Named statements run on a pool that forces generic plans (src/store/pg-pools.ts): one plan per
// connection, made without the values. On a dataset with the bench's skew, every named statement the
// store's functions can send (found by calling them, test/support/named-statements.ts) must have a
// declared expected plan here, and its generic plan must have that shape and do no more work than
// the plan PostgreSQL makes with the values (EXPLAIN ANALYZE of both: row counts, buffers, plan
// nodes; never times). PostgreSQL only: PGlite ignores statement names.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PAGE_SIZE } from '../../src/domain/memory-filter.js';
import { insertMemory, type MemoryInsert } from '../../src/records/record-write.js';
import { insertRoutable } from '../../src/records/routable-write.js';
import { createTestDatabase } from '../support/db.js';
import { testDatabaseUrl } from '../support/env.js';
import {
  StatementCapture,
  sendEveryNamedStatement,
  type NamedStatement,
} from '../support/named-statements.js';
import { DATASET_END, loadPlanDataset, type PlanDataset } from '../support/plan-dataset.js';
import {
  explainGenericPlan,
  explainStatement,
  memoryRowsReadThrough,
  type PlanPair,
} from '../support/plans.js';
import { statementNamingSites } from '../support/statement-sites.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const TIME_INDEX = 'Memory_agentId_createdAt_id_idx';
const TYPE_INDEX = 'Memory_agentId_type_createdAt_id_idx';
const CONTEXT_INDEX = 'Memory_agentId_runKind_scope_isCorrection_producerId_type_c_idx';
const SEQ_INDEX = 'Memory_agentId_seq_key';
const PRIMARY_KEY = 'Memory_pkey';
const NEEDS = '(?<needs>[01]{5}(?<backlinks>b[01]{3})?)';

/** A family of named statements and the plan its generic plans must have. */
interface Expected {
  /** The function that sends them (a statement-naming site of src/). */
  source: string;
  /** Their names, every letter spelled out: a new variant matches none and fails the test. */
  names: RegExp;
  /** The indexes "Memory" may be read through, the first being the one that drives the statement. */
  indexes(groups: Record<string, string | undefined>): string[];
  /** Any of `indexes` may drive it (a count reads every match, in no order). */
  anyIndex?: boolean;
  /** Rows the statement can return at most (its LIMIT's bound): the generic plan must be made for so many. */
  maxRows?: number;
  /** Ordered by its driving index: no Sort of more "Memory" rows than a page. */
  ordered?: boolean;
  /** Every condition is in the driving index: it reads no more rows than it returns (and the one after). */
  exact?(groups: Record<string, string | undefined>): boolean;
}

/** The backlinks' sources are read by primary key. */
const withBacklinks = (groups: Record<string, string | undefined>, ...indexes: string[]) =>
  groups.backlinks ? [...indexes, PRIMARY_KEY] : indexes;

const EXPECTED: Expected[] = [
  {
    source: 'src/store/browse.ts#listMemoryPage',
    // filterSql's letters in order (t, w+c, k, f|x; value-dependent ones are unnamed), the caller's liveness, a cursor.
    names: new RegExp(`^page_(?<filter>all|(?=[twckfx])t?(?:wc)?k?[fx]?)[RO]?(?<after>_a)?_${NEEDS}$`),
    indexes: (g) => withBacklinks(g, g.filter!.startsWith('t') ? TYPE_INDEX : TIME_INDEX),
    maxRows: MAX_PAGE_SIZE + 1,
    ordered: true,
    exact: (g) => /^(all|t?(wc)?)$/.test(g.filter!),
  },
  {
    source: 'src/store/browse.ts#listMemoryTypes',
    // A window with run kinds is unnamed (B1).
    names: /^types_(?<filter>all|wc[fx]?|k[fx]?|[fx])[RO]?$/,
    indexes: () => [TIME_INDEX, TYPE_INDEX, CONTEXT_INDEX, SEQ_INDEX],
    anyIndex: true,
  },
  {
    source: 'src/store/browse.ts#listMemoriesInSeqRange',
    // A type or a window is unnamed (L2).
    names: /^replay_(?<filter>all|(?=[kfx])k?[fx]?)$/,
    indexes: () => [SEQ_INDEX],
    maxRows: 500,
    ordered: true,
    exact: (g) => g.filter === 'all',
  },
  {
    source: 'src/records/record-reads.ts#findRecord',
    names: new RegExp(`^record_[01]{3}[RO]?_${NEEDS}$`),
    indexes: (g) => withBacklinks(g, PRIMARY_KEY),
    exact: () => true,
  },
  {
    source: 'src/records/record-reads.ts#findRecordsByIds',
    names: new RegExp(`^record_ids(?:_any)?_${NEEDS}$`),
    indexes: (g) => withBacklinks(g, PRIMARY_KEY),
    exact: () => true,
  },
  {
    source: 'src/records/record-reads.ts#listLearnings',
    names: new RegExp(`^learnings_c10_${NEEDS}$`),
    indexes: (g) => withBacklinks(g, TYPE_INDEX),
    maxRows: 20,
    ordered: true,
  },
  {
    source: 'src/records/record-write.ts#findByIdempotencyKey',
    names: new RegExp(`^record_idem_${NEEDS}$`),
    indexes: (g) => withBacklinks(g, 'Memory_producerId_idempotencyKey_key'),
    exact: () => true,
  },
  {
    source: 'src/store/filter-sql.ts#searchTextsMatching',
    names: /^search_match$/,
    indexes: () => [PRIMARY_KEY],
    exact: () => true,
  },
];

/**
 * Sites whose named statement is prepared on the write pool, where plans stay PostgreSQL's choice (no
 * forced generic plan), so a cached generic plan must read every growing table by key.
 */
const PREPARED_WRITES = [
  'src/records/record-write.ts#insertMemory',
  'src/records/routable-write.ts#insertRoutable',
];

/** Sites that pass a caller's name on (or call something else `query`): they name nothing themselves. */
const PASSING_ON = [
  'src/http/compiled-queries.ts#compiledQueries', // graphql-jit's compiled query(root, context, variables)
  'src/store/db.ts#pgliteSql', // PGlite's query(text, params, options): PGlite has no statement names
  'src/store/pg-pools.ts#pgSql',
  'src/records/record-rows.ts#loadRecords',
  'src/store/slots.ts#gated',
  'src/store/statement-observer.ts#observeSql',
];

/** Tables that grow with the records: never read whole by a named statement. */
const GROWING = ['Memory', 'MemoryTarget', 'MemoryLink', 'Run'];
/** A generic plan may read twice the rows and buffers of the custom one, and this much more: about
 * what planning the statement with its values costs (≈ 0.3 ms), and a page's index lookups. */
const ROWS_SLACK = 500;
const BUFFERS_SLACK = 200;
/** A record has at most two targets and two links in this dataset, and one run. */
const RELATED_ROWS_PER_RECORD = 4;

const expectationOf = (name: string) =>
  EXPECTED.flatMap((expected) => {
    const match = expected.names.exec(name);
    return match ? [{ expected, groups: { ...match.groups } }] : [];
  });

/** What is wrong with a statement's plans for one value set (nothing: an empty list). */
function planFaults(
  expected: Expected,
  groups: Record<string, string | undefined>,
  { generic, custom }: PlanPair,
  jitAboveCost: number,
): string[] {
  const faults: string[] = [];
  const fault = (ok: boolean, what: string) => ok || faults.push(what);
  const indexes = expected.indexes(groups);
  fault(
    !generic.jit && generic.totalCost < jitAboveCost,
    `compiled by JIT on every execution (cost ${generic.totalCost})`,
  );
  fault(
    expected.anyIndex || generic.memoryIndexes.includes(indexes[0]!),
    `not driven by ${indexes[0]} but ${generic.memoryIndexes.join(', ')}`,
  );
  const others = generic.memoryIndexes.filter((index) => !indexes.includes(index));
  fault(others.length === 0, `reads "Memory" through ${others.join(', ')}`);
  const whole = generic.seqScans.filter((table) => GROWING.includes(table));
  fault(whole.length === 0, `reads ${whole.join(', ')} whole`);
  if (expected.maxRows !== undefined)
    fault(generic.root.estimatedRows <= expected.maxRows, `planned for ${generic.root.estimatedRows} rows`);
  if (expected.ordered)
    fault(
      generic.memoryRowsSorted <= MAX_PAGE_SIZE + 1,
      `sorts ${generic.memoryRowsSorted} rows of "Memory"`,
    );
  if (expected.exact?.(groups)) {
    const read = memoryRowsReadThrough(generic, indexes[0]!);
    fault(read <= 2 * generic.root.actualRows + 1, `reads ${read} rows for ${generic.root.actualRows}`);
  }
  const memoryRows = generic.rowsRead.Memory ?? 0;
  for (const table of GROWING) {
    const [read, withValues] = [generic.rowsRead[table] ?? 0, custom.rowsRead[table] ?? 0];
    fault(
      read <= 2 * withValues + ROWS_SLACK,
      `reads ${read} rows of "${table}", the plan with the values ${withValues}`,
    );
    // A record's relations are read by the record, not all of its agent's: C10's EXISTS as a hashed
    // subplan read every target of the instrument for the ≤ 20 learnings a context returns (the
    // plan with the values did the same on this dataset, so only this bound sees it).
    if (table !== 'Memory')
      fault(
        read <= RELATED_ROWS_PER_RECORD * memoryRows + ROWS_SLACK,
        `reads ${read} rows of "${table}" for ${memoryRows} rows of "Memory"`,
      );
  }
  fault(
    generic.buffers <= 2 * custom.buffers + BUFFERS_SLACK,
    `reads ${generic.buffers} buffers, the plan with the values ${custom.buffers}`,
  );
  return faults;
}

describe.skipIf(!testDatabaseUrl)('named statements: their generic plans', () => {
  const capture = new StatementCapture();
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let client: pg.Client;
  let statements: NamedStatement[];
  let dataset: PlanDataset;

  beforeAll(async () => {
    db = await createTestDatabase({ beforeStatement: capture.hook, layout: 'plain' });
    dataset = await loadPlanDataset(db.url!);
    statements = await sendEveryNamedStatement(db, capture, dataset);
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
  }, 120_000);

  afterAll(async () => {
    await client?.end();
    await db?.close();
  });

  it('B1–B4, C10, L1, L2, W8: every place in src/ that names a statement is declared here (or passes a name on)', () => {
    const declared = [
      ...new Set([...EXPECTED.map((expected) => expected.source), ...PREPARED_WRITES, ...PASSING_ON]),
    ].sort();
    expect(statementNamingSites(root)).toEqual(declared);
  });

  it('B1–B4, C10, L1, L2, W8: every named statement sent has exactly one declared plan, every declaration a statement', () => {
    const undeclared = statements
      .filter(({ name }) => expectationOf(name).length !== 1)
      .map(({ name }) => name);
    expect(undeclared).toEqual([]);
    const unsent = EXPECTED.filter((expected) => !statements.some(({ name }) => expected.names.test(name)));
    expect(unsent.map((expected) => expected.names.source)).toEqual([]);
  });

  it('B1–B4, C10, L1, L2, W8: every generic plan has its declared shape and does no more than the plan made with the values', async () => {
    // A server with JIT off (-1) is judged by PostgreSQL's default: production may have it on.
    const { rows } = await client.query<{ jit_above_cost: string }>('SHOW jit_above_cost');
    const setting = Number(rows[0]!.jit_above_cost);
    const jitAboveCost = setting >= 0 ? setting : 100_000;
    const faults: string[] = [];
    for (const statement of statements) {
      const [declared] = expectationOf(statement.name);
      if (!declared) continue; // the test above fails
      const pairs = await explainStatement(client, statement.text, statement.valueSets);
      pairs.forEach((pair, i) => {
        for (const fault of planFaults(declared.expected, declared.groups, pair, jitAboveCost))
          faults.push(`${statement.name} ${JSON.stringify(statement.valueSets[i])}: ${fault}`);
      });
    }
    expect(faults).toEqual([]);
  }, 120_000);

  it('W9, D2: the write statement and WRITE_FORM=transaction’s, prepared on the write pool, read every growing table by key in their generic plans', async () => {
    const row: MemoryInsert = {
      id: randomUUID(),
      agentId: dataset.big.id,
      type: 'market_structure',
      scope: 'INSTRUMENTS',
      content: 'plan probe',
      metadata: {},
      timeframe: null,
      sourceRunId: dataset.runningRunId,
      producerId: dataset.producerId,
      runKind: 'ANALYSIS',
      createdAt: DATASET_END,
      expiresAt: null,
      expiryPolicy: null,
      idempotencyKey: null,
      requestHash: null,
      instruments: ['BTC', 'SOL'],
      links: dataset.linkedIds.map((targetMemoryId) => ({ targetMemoryId, linkType: 'evidence' })),
    };
    // Writes, and imports (their batch's transaction prepares them on the write pool as well).
    const sent = [
      await capture.first(() => insertMemory(db.writeSql, row, 'write', 'statement')),
      await capture.first(() => insertMemory(db.writeSql, row, 'import', 'statement')),
    ];
    expect(sent.map((statement) => statement.name)).toEqual(['memory_write', 'memory_import']);
    // D2: WRITE_FORM=transaction's statements, each as it would be sent (the checks answered valid).
    const routed: { name?: string; text: string; params: unknown[] }[] = [];
    for (const mode of ['write', 'import'] as const) {
      await insertRoutable(
        {
          inTransaction: true,
          query: async <T>(text: string, params: unknown[] = [], name?: string) => {
            routed.push({ text, params, name });
            if (name === `memory_${mode}_checks`)
              return [
                { run_status: 'RUNNING', selected: row.instruments, linkable: dataset.linkedIds },
              ] as T[];
            return (name === 'memory_next_seq' ? [{ seq: '1' }] : []) as T[];
          },
        },
        row,
        mode,
      );
    }
    const inserts = [
      'memory_next_seq',
      'memory_record',
      'memory_targets_2',
      `memory_links_${dataset.linkedIds.length}`,
    ];
    expect(routed.map((statement) => statement.name)).toEqual([
      'memory_write_checks',
      ...inserts,
      'memory_import_checks',
      ...inserts,
    ]);
    const { rows } = await client.query<{ jit_above_cost: string }>('SHOW jit_above_cost');
    for (const statement of [...sent, ...routed]) {
      const plan = await explainGenericPlan(client, statement.text, statement.params);
      const whole = plan.seqScans.filter((table) => GROWING.includes(table));
      expect({ statement: statement.name, whole }).toEqual({ statement: statement.name, whole: [] });
      expect(plan.totalCost).toBeLessThan(Math.max(0, Number(rows[0]!.jit_above_cost)) || 100_000);
    }
  });
});

// A named statement's plans as the service's pools get them: the generic plan its `named` pool forces
// (plan_cache_mode = force_generic_plan) and the custom plan PostgreSQL makes with the values, each
// EXPLAIN (ANALYZE, BUFFERS) of one execution, read into the facts the plan tests assert on.
import type pg from 'pg';

export interface PlanNode {
  type: string;
  relation: string | null;
  index: string | null;
  /** Rows per loop, as EXPLAIN ANALYZE counts them. */
  actualRows: number;
  loops: number;
  estimatedRows: number;
  /** Rows per loop a filter or an index recheck dropped after reading them. */
  removedRows: number;
  children: PlanNode[];
}

export interface PlanFacts {
  root: PlanNode;
  /** Every node, depth first. */
  nodes: PlanNode[];
  totalCost: number;
  /** The plan was compiled (JIT): done again on every execution of a cached plan. */
  jit: boolean;
  /** Shared buffers hit or read. */
  buffers: number;
  /**
   * Rows the plan read per table (returned or dropped by a filter), over all loops: "Memory"'s, and a
   * hashed subplan's scan of "MemoryTarget", say.
   */
  rowsRead: Record<string, number>;
  /** The indexes "Memory" is read through (bitmap index scans under its bitmap heap scans included). */
  memoryIndexes: string[];
  /** The tables read whole (Seq Scan). */
  seqScans: string[];
  /** The most rows one Sort (or Incremental Sort) over "Memory" rows sorted in one loop. */
  memoryRowsSorted: number;
}

interface RawNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Plan Rows': number;
  'Total Cost': number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: RawNode[];
}

function toNode(raw: RawNode): PlanNode {
  return {
    type: raw['Node Type'],
    relation: raw['Relation Name'] ?? null,
    index: raw['Index Name'] ?? null,
    actualRows: raw['Actual Rows'],
    loops: raw['Actual Loops'],
    estimatedRows: raw['Plan Rows'],
    removedRows: (raw['Rows Removed by Filter'] ?? 0) + (raw['Rows Removed by Index Recheck'] ?? 0),
    children: (raw.Plans ?? []).map(toNode),
  };
}

export const walk = (node: PlanNode): PlanNode[] => [node, ...node.children.flatMap(walk)];

const readsMemory = (node: PlanNode) => walk(node).some((n) => n.relation === 'Memory');

type Explained = { Plan: RawNode; JIT?: unknown };

function factsOf(explained: Explained): PlanFacts {
  const root = toNode(explained.Plan);
  const nodes = walk(root);
  const sorts = nodes.filter((n) => /Sort$/.test(n.type) && n.children.some(readsMemory));
  const rowsRead: Record<string, number> = {};
  for (const n of nodes)
    if (n.relation)
      rowsRead[n.relation] = (rowsRead[n.relation] ?? 0) + (n.actualRows + n.removedRows) * n.loops;
  return {
    root,
    nodes,
    totalCost: explained.Plan['Total Cost'],
    jit: explained.JIT !== undefined,
    buffers: (explained.Plan['Shared Hit Blocks'] ?? 0) + (explained.Plan['Shared Read Blocks'] ?? 0),
    rowsRead,
    memoryRowsSorted: Math.max(0, ...sorts.map((n) => n.children[0]!.actualRows)),
    memoryIndexes: [
      ...new Set(
        nodes
          .filter((n) => n.relation === 'Memory')
          .flatMap((n) =>
            n.index ? [n.index] : walk(n).flatMap((b) => (b.type === 'Bitmap Index Scan' ? [b.index!] : [])),
          ),
      ),
    ],
    seqScans: [...new Set(nodes.filter((n) => n.type === 'Seq Scan').map((n) => n.relation!))],
  };
}

/** A statement's plans for one set of its values. */
export interface PlanPair {
  generic: PlanFacts;
  custom: PlanFacts;
}

/**
 * Prepares `text` once on `client` (as pg does for a named statement: parameter types inferred) and
 * explains one execution per value set, first under the forced generic plan, then as a custom plan.
 * The values reach EXECUTE as the literals of the text pg sends, so they are coerced the same way.
 */
export async function explainStatement(
  client: pg.Client,
  text: string,
  valueSets: readonly (readonly unknown[])[],
): Promise<PlanPair[]> {
  await client.query('DEALLOCATE ALL');
  await client.query(`PREPARE plan_probe AS ${text}`);
  const pairs: PlanPair[] = [];
  for (const values of valueSets) {
    const args = await literals(client, values);
    const execute = `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE plan_probe${args.length ? `(${args.join(', ')})` : ''}`;
    // One round trip for both plans: pg answers a multi-statement text with one result per statement.
    const results = (await client.query(
      `SET plan_cache_mode = force_generic_plan; ${execute}; SET plan_cache_mode = force_custom_plan; ${execute}`,
    )) as unknown as pg.QueryResult<{ 'QUERY PLAN': [Explained] }>[];
    const [generic, custom] = [results[1]!, results[3]!].map((result) =>
      factsOf(result.rows[0]!['QUERY PLAN'][0]),
    );
    pairs.push({ generic: generic!, custom: custom! });
  }
  return pairs;
}

/**
 * The generic plan of `text` for `values`, explained without running it (EXPLAIN without ANALYZE:
 * a data-modifying statement changes nothing), as a statement prepared once and cached would use it.
 */
export async function explainGenericPlan(
  client: pg.Client,
  text: string,
  values: readonly unknown[],
): Promise<PlanFacts> {
  await client.query('DEALLOCATE ALL');
  await client.query(`PREPARE plan_probe AS ${text}`);
  const args = await literals(client, values);
  const results = (await client.query(
    `SET plan_cache_mode = force_generic_plan; EXPLAIN (FORMAT JSON) EXECUTE plan_probe(${args.join(', ')}); RESET plan_cache_mode`,
  )) as unknown as pg.QueryResult<{ 'QUERY PLAN': [Explained] }>[];
  return factsOf(results[1]!.rows[0]!['QUERY PLAN'][0]);
}

/** The values as SQL literals of the text pg sends for them (arrays, dates and all). */
async function literals(client: pg.Client, values: readonly unknown[]): Promise<string[]> {
  if (values.length === 0) return [];
  const { rows } = await client.query<string[]>({
    text: `SELECT ${values.map((_, i) => `quote_nullable($${i + 1}::text)`).join(', ')}`,
    values: [...values],
    rowMode: 'array',
  });
  return rows[0]!;
}

/** Rows of "Memory" the plan read through `index` (returned or dropped by a filter), over all loops. */
export function memoryRowsReadThrough(facts: PlanFacts, index: string): number {
  const through = (n: PlanNode) =>
    n.index === index || walk(n).some((b) => b.type === 'Bitmap Index Scan' && b.index === index);
  return facts.nodes
    .filter((n) => n.relation === 'Memory' && through(n))
    .reduce((sum, n) => sum + (n.actualRows + n.removedRows) * n.loops, 0);
}

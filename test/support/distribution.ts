// D1, D3: how the schema would be laid out on Citus, in one place. Every table is distributed by
// the agent id (co-located) except the reference tables below; the catalog check
// (test/api/distribution-keys.test.ts) reads the migrated schema against Citus' key and FK rules.
import type { Sql } from '../../src/store/db.js';

/**
 * Small tables replicated to every node on Citus: the instrument catalog (shared by all agents)
 * and what must be unique across agents (agent names). Written rarely; never per run or record.
 */
export const REFERENCE_TABLES: readonly string[] = ['Instrument', 'AgentName'];

/** Tables that are not the service's data at all. */
const IGNORED_TABLES: readonly string[] = ['_prisma_migrations'];

/** A distributed table's distribution column: the agent id (the Agent table's own id). */
export function distributionColumn(table: string): string {
  return table === 'Agent' ? 'id' : 'agentId';
}

interface TableRow {
  table: string;
  columns: string[];
}

interface KeyRow {
  table: string;
  name: string;
  columns: string[];
}

interface ForeignKeyRow {
  table: string;
  name: string;
  columns: string[];
  refTable: string;
  refColumns: string[];
  onUpdate: string;
  onDelete: string;
}

/** The public schema's tables, unique indexes (primary keys included) and foreign keys. */
async function readCatalog(sql: Sql) {
  const tables = await sql.query<TableRow>(
    `SELECT c.relname AS "table",
            array(SELECT a.attname::text FROM pg_attribute a
                   WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum) AS columns
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition
      ORDER BY 1`,
  );
  const keys = await sql.query<KeyRow>(
    `SELECT t.relname AS "table", i.relname AS name,
            array(SELECT a.attname::text FROM unnest(x.indkey) WITH ORDINALITY k(attnum, ord)
                    JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum ORDER BY k.ord) AS columns
       FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE n.nspname = 'public' AND x.indisunique AND NOT t.relispartition
      ORDER BY 1, 2`,
  );
  const foreignKeys = await sql.query<ForeignKeyRow>(
    `SELECT t.relname AS "table", c.conname AS name,
            array(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY k(attnum, ord)
                    JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum ORDER BY k.ord) AS columns,
            r.relname AS "refTable",
            array(SELECT a.attname::text FROM unnest(c.confkey) WITH ORDINALITY k(attnum, ord)
                    JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.attnum ORDER BY k.ord) AS "refColumns",
            c.confupdtype::text AS "onUpdate", c.confdeltype::text AS "onDelete"
       FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_class r ON r.oid = c.confrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE n.nspname = 'public' AND c.contype = 'f' AND c.conparentid = 0
      ORDER BY 1, 2`,
  );
  return { tables, keys, foreignKeys };
}

const ACTION: Record<string, string> = {
  a: 'NO ACTION',
  r: 'RESTRICT',
  c: 'CASCADE',
  n: 'SET NULL',
  d: 'SET DEFAULT',
};

/**
 * Every violation of Citus' rules for co-located tables distributed by agent id (D1), one line each:
 * a distributed table has its distribution column; its unique keys contain it; a foreign key between
 * distributed tables has it at the same position on both sides; no reference table points at a
 * distributed one; no `ON UPDATE CASCADE` and no `ON DELETE SET NULL / SET DEFAULT` (which would
 * update or null the agent id of a composite key) on a distributed table's foreign keys.
 */
export async function distributionProblems(sql: Sql): Promise<string[]> {
  const { tables, keys, foreignKeys } = await readCatalog(sql);
  const problems: string[] = [];
  const names = new Set(tables.map((t) => t.table));
  for (const table of REFERENCE_TABLES) {
    if (!names.has(table)) problems.push(`reference table ${table} does not exist`);
  }
  const isReference = (table: string) => REFERENCE_TABLES.includes(table);
  const distributed = new Map(
    tables
      .filter((t) => !isReference(t.table) && !IGNORED_TABLES.includes(t.table))
      .map((t) => [t.table, t.columns]),
  );
  for (const [table, columns] of distributed) {
    const column = distributionColumn(table);
    if (!columns.includes(column)) problems.push(`${table} has no ${column} column`);
  }
  for (const key of keys) {
    if (!distributed.has(key.table)) continue;
    const column = distributionColumn(key.table);
    if (!key.columns.includes(column)) {
      problems.push(`${key.table}: unique key ${key.name} (${key.columns.join(', ')}) lacks ${column}`);
    }
  }
  for (const fk of foreignKeys) {
    const from = `${fk.table}: foreign key ${fk.name} (${fk.columns.join(', ')}) → ${fk.refTable}(${fk.refColumns.join(', ')})`;
    if (!distributed.has(fk.table)) {
      if (distributed.has(fk.refTable))
        problems.push(`${from}: a reference table points at a distributed one`);
      continue;
    }
    if (distributed.has(fk.refTable)) {
      const at = fk.columns.indexOf(distributionColumn(fk.table));
      if (at < 0 || fk.refColumns[at] !== distributionColumn(fk.refTable)) {
        problems.push(`${from}: not on the distribution column at the same position`);
      }
    }
    if (fk.onUpdate === 'c') problems.push(`${from}: ON UPDATE CASCADE`);
    if (fk.onDelete === 'n' || fk.onDelete === 'd')
      problems.push(`${from}: ON DELETE ${ACTION[fk.onDelete]}`);
  }
  return problems;
}

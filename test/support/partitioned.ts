// D3: the stand-in for Citus here. An empty, migrated PostgreSQL database is rewritten so every
// agent-owned table is `PARTITION BY HASH` of its distribution column (test/support/distribution.ts)
// with PARTITIONS partitions: PostgreSQL then enforces what Citus enforces of a distributed table —
// every primary and unique key contains the column — and EXPLAIN shows which partitions a
// statement touches, as Citus' router planner would pick shards. Names of tables, keys, indexes and
// foreign keys stay those of the migrated schema.
import { distributionColumn, REFERENCE_TABLES } from './distribution.js';

export const PARTITIONS = 8;

type Query = <T>(text: string, params?: unknown[]) => Promise<T[]>;

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Rewrites the (empty) database behind `query` into the partitioned layout. */
export async function partitionByAgent(query: Query): Promise<void> {
  const tables = (
    await query<{ table: string }>(
      `SELECT c.relname AS "table" FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname <> '_prisma_migrations' ORDER BY 1`,
    )
  )
    .map((row) => row.table)
    .filter((table) => !REFERENCE_TABLES.includes(table));
  const foreignKeys = await query<{ table: string; name: string; def: string }>(
    `SELECT c.conrelid::regclass::text AS "table", c.conname AS name, pg_get_constraintdef(c.oid) AS def
       FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
      WHERE n.nspname = 'public' AND c.contype = 'f'`,
  );
  for (const fk of foreignKeys) await query(`ALTER TABLE ${fk.table} DROP CONSTRAINT ${quote(fk.name)}`);
  for (const table of tables) {
    const keys = await query<{ name: string; def: string }>(
      `SELECT conname AS name, pg_get_constraintdef(oid) AS def FROM pg_constraint
        WHERE conrelid = $1::regclass AND contype IN ('p', 'u') ORDER BY contype, conname`,
      [quote(table)],
    );
    const indexes = await query<{ def: string }>(
      `SELECT pg_get_indexdef(i.indexrelid) AS def FROM pg_index i
        WHERE i.indrelid = $1::regclass
          AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)`,
      [quote(table)],
    );
    const plain = quote(`${table}__plain`);
    await query(`ALTER TABLE ${quote(table)} RENAME TO ${plain}`);
    await query(
      `CREATE TABLE ${quote(table)} (LIKE ${plain} INCLUDING DEFAULTS INCLUDING GENERATED INCLUDING CONSTRAINTS
         INCLUDING STORAGE INCLUDING COMMENTS) PARTITION BY HASH (${quote(distributionColumn(table))})`,
    );
    await query(`DROP TABLE ${plain}`);
    for (let remainder = 0; remainder < PARTITIONS; remainder++) {
      await query(
        `CREATE TABLE ${quote(`${table}_p${remainder}`)} PARTITION OF ${quote(table)}
           FOR VALUES WITH (MODULUS ${PARTITIONS}, REMAINDER ${remainder})`,
      );
    }
    for (const key of keys)
      await query(`ALTER TABLE ${quote(table)} ADD CONSTRAINT ${quote(key.name)} ${key.def}`);
    for (const index of indexes) await query(index.def);
  }
  for (const fk of foreignKeys)
    await query(`ALTER TABLE ${fk.table} ADD CONSTRAINT ${quote(fk.name)} ${fk.def}`);
}

/** The partitioned tables' partitions, by partition name: which table each belongs to. */
export async function partitionsOf(query: Query): Promise<Map<string, string>> {
  const rows = await query<{ partition: string; table: string }>(
    `SELECT c.relname AS partition, p.relname AS "table" FROM pg_inherits i
       JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
      WHERE p.relkind = 'p'`,
  );
  return new Map(rows.map((row) => [row.partition, row.table]));
}

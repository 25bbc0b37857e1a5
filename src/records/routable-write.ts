// D2: the record write as single-shard statements in one transaction (`WRITE_FORM=transaction`), for
// a distributed engine whose router planner does not take the one statement's data-modifying CTEs
// (Citus). Every statement names the agent on every table it touches, so each routes to the agent's
// shard; the checks, the L2 numbering and the refusals are the one statement's (./record-write.ts).
// The caller runs these inside a transaction: a refusal or a failure rolls everything back.
import type { Sql } from '../store/db.js';
import { namedStatement } from '../store/named-sql.js';
import {
  INSERT_PARAMS,
  insertValues,
  LINKABLE,
  NOTHING_CHECKED,
  TARGETABLE,
  WRITER,
  type InsertChecks,
  type InsertParam,
  type MemoryInsert,
} from './record-insert.js';

/**
 * W2, W4, W5, W9: one SELECT, before anything is written. The run's row is read FOR SHARE and stays
 * locked until the transaction ends, so a concurrent finishRun waits for this write (W9).
 */
const CHECKS = {
  write: namedStatement(
    ['agentId', 'sourceRunId', 'instruments', 'linkTargets'],
    (p) =>
      `SELECT (${WRITER.write(p)}) AS run_status, (${TARGETABLE.write(p)}) AS selected, (${LINKABLE(p)}) AS linkable`,
  ),
  import: namedStatement(
    ['agentId', 'instruments', 'linkTargets'],
    (p) =>
      `SELECT (${WRITER.import()}) AS run_status, (${TARGETABLE.import(p)}) AS selected, (${LINKABLE(p)}) AS linkable`,
  ),
};

/**
 * L2: the agent's next seq. The UPDATE holds the agent's row lock until commit, so a concurrent write
 * of the same agent waits and takes the next number: seq order is commit order; a rollback returns
 * the number (no gaps).
 */
const NEXT_SEQ = `UPDATE "Agent" SET "lastSeq" = "lastSeq" + 1 WHERE id = $1 RETURNING "lastSeq"::text AS seq`;

/** The record row's columns: the write's parameters but the lists its targets and links take. */
type RecordParam = Exclude<InsertParam, 'instruments' | 'linkTargets' | 'linkTypes'>;
const LISTS: readonly InsertParam[] = ['instruments', 'linkTargets', 'linkTypes'];

const INSERT_RECORD = namedStatement(
  [...INSERT_PARAMS.filter((name): name is RecordParam => !LISTS.includes(name)), 'seq'],
  (
    p,
  ) => `INSERT INTO "Memory" (id, "agentId", type, scope, content, metadata, timeframe, "sourceRunId", "producerId",
                      "runKind", "isCorrection", "createdAt", "expiresAt", "expiryPolicy", "idempotencyKey", "requestHash", seq)
VALUES (${p.id}, ${p.agentId}, ${p.type}, ${p.scope}::"MemoryScope", ${p.content}, ${p.metadata}::json, ${p.timeframe},
        ${p.sourceRunId}, ${p.producerId}, ${p.runKind}::"RunKind", ${p.isCorrection}, ${p.createdAt}, ${p.expiresAt},
        ${p.expiryPolicy}, ${p.idempotencyKey}, ${p.requestHash}, ${p.seq}::bigint)`,
);

/**
 * Multi-row VALUES (one text per row count, kept): every row carries the agent id, so the engine
 * routes the whole statement to one shard; an INSERT … SELECT over unnest() would be planned apart.
 */
const valuesStatement = (name: string, head: string, perRow: (index: number) => string) => {
  const texts = new Map<number, string>();
  return {
    text(count: number): string {
      let text = texts.get(count);
      if (text === undefined) {
        text = `${head} VALUES ${Array.from({ length: count }, (_, index) => perRow(index)).join(', ')}`;
        texts.set(count, text);
      }
      return text;
    },
    /** One prepared statement per row count (the name always carries the same text). */
    name: (count: number) => `${name}_${count}`,
  };
};

const TARGETS = valuesStatement(
  'memory_targets',
  `INSERT INTO "MemoryTarget" ("memoryId", position, "instrumentId", "agentId", "producerId", "runKind", type, "isCorrection", "createdAt")`,
  (index) => `($1, ${index}, $${8 + index}, $2, $3, $4::"RunKind", $5, $6, $7)`,
);

const LINKS = valuesStatement(
  'memory_links',
  `INSERT INTO "MemoryLink" ("agentId", "memoryId", position, "targetMemoryId", "linkType")`,
  (index) => `($1, $2, ${index}, $${3 + 2 * index}::uuid, $${4 + 2 * index})`,
);

/** Stores the record in the transaction `sql` belongs to: its seq, or what the checks found when a reference is bad. */
export async function insertRoutable(
  sql: Sql,
  row: MemoryInsert,
  mode: 'write' | 'import',
): Promise<{ seq: number } | InsertChecks> {
  // On pooled connections the run's lock, the number and the rows would each commit on their own.
  if (sql.inTransaction !== true) throw new Error('the routable write runs inside Database.sqlTransaction');
  const values = insertValues(row);
  const checks = CHECKS[mode];
  // Named: prepared once per connection of the write pool (plans stay PostgreSQL's choice).
  const [found] = await sql.query<InsertChecks>(checks.text, checks.bind(values), `memory_${mode}_checks`);
  const linkTargets = new Set(row.links.map((link) => link.targetMemoryId));
  const valid =
    found !== undefined &&
    found.run_status === 'RUNNING' &&
    found.selected.length === row.instruments.length &&
    found.linkable.length === linkTargets.size;
  if (!valid) return found ?? NOTHING_CHECKED;

  const [next] = await sql.query<{ seq: string }>(NEXT_SEQ, [row.agentId], 'memory_next_seq');
  if (!next) throw new Error(`agent ${row.agentId} has no row to number its records`);
  await sql.query(INSERT_RECORD.text, INSERT_RECORD.bind({ ...values, seq: next.seq }), 'memory_record');
  if (row.instruments.length > 0) {
    await sql.query(
      TARGETS.text(row.instruments.length),
      [
        row.id,
        row.agentId,
        row.producerId,
        row.runKind,
        row.type,
        values.isCorrection,
        row.createdAt,
        ...row.instruments,
      ],
      TARGETS.name(row.instruments.length),
    );
  }
  if (row.links.length > 0) {
    await sql.query(
      LINKS.text(row.links.length),
      [row.agentId, row.id, ...row.links.flatMap((link) => [link.targetMemoryId, link.linkType])],
      LINKS.name(row.links.length),
    );
  }
  return { seq: Number(next.seq) };
}

// D1, D2: every agent-owned table's keys lead with the agent id, so a row named by its id (or token
// hash) alone is found by probing that key once per agent: `"agentId" IN (SELECT id FROM "Agent")`
// plans as a nested loop over the (small) Agent table, each step one primary-key probe. No index on
// the id alone is kept (on the largest tables it would cost every write and tempt the planner away
// from the agent's keys). Only the admin, which names rows without their agent, reads this way; on
// Citus such a statement visits every shard (docs/scaling.md lists them).
import type { Sql } from './db.js';

/** The condition that lets `alias`'s agent-leading keys find a row named without its agent. */
export function anyAgent(alias: string): string {
  return `${alias}."agentId" IN (SELECT a.id FROM "Agent" a)`;
}

/** The agent of the record `id` (null: none), for the admin, which names a record without it. */
export async function agentOfRecord(sql: Sql, id: string): Promise<string | null> {
  const [row] = await sql.query<{ agentId: string }>(
    `SELECT m."agentId" FROM "Memory" m WHERE ${anyAgent('m')} AND m.id = $1`,
    [id],
  );
  return row?.agentId ?? null;
}

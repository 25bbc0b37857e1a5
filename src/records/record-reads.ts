// Memory records by id, by ids and as learnings (C10), each in ONE named statement with what the
// selection needs (./record-rows.ts), instead of a Prisma statement per relation.
import { AGENT_LEARNINGS } from '../domain/write-validation.js';
import type { Sql } from '../store/db.js';
import type { RecordReadFilter } from './record-shape.js';
import { loadRecords, type LoadedRecord, type RecordNeeds } from './record-rows.js';
import { anyAgent } from '../store/any-agent.js';
import { withLiveness, type TokenLiveness } from '../store/tokens.js';
import { LEARNINGS_LIMIT, type ContextQuery } from '../store/trading-context.js';

/**
 * One record by id with what `needs` asks for, in one named statement; null when none is readable
 * (or, with `liveness`, when the caller's token no longer authenticates: listMemoryPage).
 * D2: read by its primary key (agentId, id): with `readable.agentId` one probe (one shard on Citus);
 * without (the admin's memory(id)) one probe per agent (anyAgent: every shard on Citus).
 */
export async function findRecord(
  sql: Sql,
  id: string,
  needs: RecordNeeds,
  readable: RecordReadFilter = {},
  liveness: TokenLiveness | null = null,
): Promise<LoadedRecord | null> {
  const values: unknown[] = [id];
  const param = (value: unknown) => `$${values.push(value)}`;
  const restricted = readable.agentId === undefined ? ['m.id = $1', anyAgent('m')] : ['m.id = $1'];
  const restrict = (['agentId', 'producerId', 'type'] as const).map((column) => {
    const value = readable[column];
    if (value === undefined) return '0';
    restricted.push(`m."${column}" = ${param(value)}`);
    return '1';
  });
  const { where, variant } = withLiveness({ where: restricted, variant: restrict.join('') }, liveness, param);
  const agent = readable.agentId === undefined ? undefined : '$2';
  const query = { name: 'record', agent, where: where.join(' AND '), order: '', limit: '' } as const;
  const [record] = await loadRecords(sql, needs, query, values, variant);
  return record ?? null;
}

/**
 * The records among `ids`, in the order of `ids` (each once); unknown ids are skipped. `agentId`
 * names their agent, or (several agents: the admin's import read-back) one agent per id, so each is
 * read by its primary key (D2).
 */
export async function findRecordsByIds(
  sql: Sql,
  agentId: string | readonly string[],
  ids: string[],
  needs: RecordNeeds,
): Promise<LoadedRecord[]> {
  if (ids.length === 0) return [];
  const several = typeof agentId !== 'string';
  const query = {
    name: 'record',
    agent: several ? undefined : '$2',
    where: several
      ? '(m."agentId", m.id) IN (SELECT * FROM unnest($2::uuid[], $1::uuid[]))'
      : 'm.id = ANY($1::uuid[]) AND m."agentId" = $2',
    order: '',
    limit: '',
  } as const;
  const values = [ids, agentId];
  const records = await loadRecords(sql, needs, query, values, several ? 'ids_any' : 'ids');
  const byId = new Map(records.map((record) => [record.id, record]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** C10: the agent's learnings (any writer kind), agent-wide or targeting the instrument, as of `at`, newest first. */
export async function listLearnings(
  sql: Sql,
  query: ContextQuery,
  needs: RecordNeeds,
): Promise<LoadedRecord[]> {
  const learnings = {
    name: 'learnings',
    agent: '$1',
    // OFFSET 0 keeps the EXISTS a probe per candidate record: without it PostgreSQL may turn it into
    // a hashed subplan, and a generic plan (made for "some type", so expecting thousands of matches)
    // does: it hashed every target of the instrument, ≈ 17 ms per context on the bench's agent,
    // where the ≤ 20 records it returns need ≈ 20 index probes (≈ 0.7 ms).
    where: `m."agentId" = $1 AND m.type = $2 AND m."createdAt" <= $3 AND (m.scope = 'AGENT' OR EXISTS (
      SELECT 1 FROM "MemoryTarget" t WHERE t."agentId" = $1 AND t."memoryId" = m.id AND t."instrumentId" = $4
      OFFSET 0))`,
    order: 'ORDER BY m."createdAt" DESC, m.id DESC',
    limit: `LIMIT ${LEARNINGS_LIMIT}`,
  } as const;
  const values = [query.agentId, AGENT_LEARNINGS, query.at, query.instrument];
  return loadRecords(sql, needs, learnings, values, 'c10');
}

// B11 (B4): a search pages newest first through its cursor, the GIN index finds rare
// words (the page statement's plan), and the filter works on a store migrated by this process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveFilter } from '../../src/domain/memory-filter.js';
import { listMemoryPage, listMemoryTypes } from '../../src/store/browse.js';
import { openDatabase, type Database } from '../../src/store/db.js';
import {
  createAgentFixture,
  startHarness,
  startRun,
  writeOk,
  type GqlResult,
  type Harness,
} from '../support/harness.js';

const MEMORIES = `query($filter: MemoryFilter, $first: Int, $after: String) {
  memories(filter: $filter, first: $first, after: $after) {
    edges { cursor node { id type createdAt } } pageInfo { hasNextPage endCursor } } }`;

interface Page {
  edges: { cursor: string; node: { id: string; type: string; createdAt: string } }[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

const T0 = Date.parse('2026-09-01T10:00:00.000Z');

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ layout: 'plain' }); // B11 names the plain layout's GIN index
});
afterAll(async () => {
  await h.close();
});

const errorOf = (result: GqlResult) => result.errors?.[0];

describe('B11: paging a search (B4)', () => {
  it('B4: a search pages newest first without gaps or duplicates; a cursor only continues its own filter', async () => {
    const agent = await createAgentFixture(h, { instruments: ['ETH'] });
    const base = Date.parse('2026-07-01T00:00:00Z');
    // 40 records, two per instant (the id breaks the tie), every other one about alpha.
    const { importMemories: stored } = await h.ok<{ importMemories: { id: string; createdAt: string }[] }>(
      'mutation($i: [ImportMemoryInput!]!) { importMemories(input: $i) { id createdAt } }',
      {
        i: Array.from({ length: 40 }, (_, i) => ({
          agentId: agent.agentId,
          type: 'note',
          scope: 'AGENT',
          content: i % 2 === 0 ? `alpha signal ${i}` : `beta noise ${i}`,
          metadata: i % 4 === 1 ? { tag: 'alpha' } : {},
          createdAt: new Date(base + Math.floor(i / 2) * 1000).toISOString(),
        })),
      },
    );
    const alpha = stored
      .filter((_, i) => i % 2 === 0 || i % 4 === 1)
      .sort((a, b) =>
        a.createdAt !== b.createdAt ? (a.createdAt < b.createdAt ? 1 : -1) : a.id < b.id ? 1 : -1,
      )
      .map((s) => s.id);
    expect(alpha).toHaveLength(30);
    const pageOf = async (filter: Record<string, unknown>, after: string | null) =>
      (await h.ok<{ memories: Page }>(MEMORIES, { filter, first: 7, after }, agent.operatorToken)).memories;

    const seen: string[] = [];
    let after: string | null = null;
    for (let i = 0; i < 10; i++) {
      const next: Page = await pageOf({ text: 'alpha' }, after);
      seen.push(...next.edges.map((e) => e.node.id));
      if (!next.pageInfo.hasNextPage) break;
      after = next.pageInfo.endCursor;
      if (i === 1) {
        // A newer matching record arriving between pages does not shift the later ones.
        const run = await startRun(h, agent.producers.adhoc!.id);
        await writeOk(h, run.token, { type: 'note', scope: 'AGENT', content: 'alpha arrives late' });
      }
    }
    expect(seen).toEqual(alpha);

    const first = await pageOf({ text: 'alpha' }, null);
    const cursor = first.pageInfo.endCursor;
    // The same filter written differently continues; another filter is refused.
    expect((await pageOf({ text: '  alpha ' }, cursor)).edges[0]?.node.id).toBe(alpha[6]);
    for (const filter of [
      { text: 'beta' },
      {},
      { text: 'alpha', instruments: ['ETH'] },
      { text: 'alpha', freshness: 'FRESH' },
    ]) {
      const result = await h.gql(MEMORIES, { filter, first: 7, after: cursor }, agent.operatorToken);
      expect(errorOf(result)?.extensions, JSON.stringify(filter)).toMatchObject({
        code: 'BAD_USER_INPUT',
        field: 'after',
      });
    }
  });
});

describe('B11: the search index', () => {
  it('B11: a rare word is found through the GIN index "Memory_search_idx", not by scanning', async () => {
    const agent = await createAgentFixture(h, { instruments: ['ETH'] });
    // 3,000 records straight into the table (their content is all that matters here), 3 with the word.
    await h.db.sql.query(
      `INSERT INTO "Memory" (id, "agentId", type, scope, content, metadata, "createdAt", seq)
       SELECT gen_random_uuid(), $1, 'note', 'AGENT',
              CASE WHEN i % 1000 = 0 THEN 'a quokka sighting' ELSE 'ordinary market chatter number ' || i END,
              json_build_object('detail', 'more ordinary words ' || i), $2::timestamptz - i * interval '1 second', i
         FROM generate_series(1, 3000) AS i`,
      [agent.agentId, new Date(T0).toISOString()],
    );
    await h.db.sql.query(`UPDATE "Agent" SET "lastSeq" = 3000 WHERE id = $1`, [agent.agentId]);
    await h.db.sql.query('ANALYZE "Memory"');
    const plans: string[] = [];
    // The page statement itself, explained instead of run.
    const explaining = {
      ...h.db,
      sql: {
        query: async (text: string, params: unknown[]) => {
          const rows = await h.db.sql.query<Record<string, string>>(`EXPLAIN ${text}`, params);
          plans.push(rows.map((row) => Object.values(row)[0]).join('\n'));
          return [];
        },
      },
    } as unknown as Database;
    const needs = {
      content: true,
      metadata: false,
      targets: true,
      links: false,
      provenance: true,
      backlinks: null,
    };
    await listMemoryPage(
      explaining,
      agent.agentId,
      resolveFilter({ text: 'quokka' }, new Date(T0)),
      { first: 50, after: null },
      needs,
    );
    expect(plans[0]).toContain('Memory_search_idx');
    const found = await h.ok<{ memories: Page }>(
      MEMORIES,
      { filter: { text: 'quokka' } },
      agent.operatorToken,
    );
    expect(found.memories.edges).toHaveLength(3);
  });
});

describe('B2: a store this process migrated itself', () => {
  // PGlite learns array types when it opens; the test databases start from a migrated snapshot,
  // `npm start` on a fresh folder migrates after opening (the README walk-through caught this). The
  // store here is always an embedded one, so the PostgreSQL pass runs this test too.
  it('B2: runKinds filters on an embedded store migrated after it opened', { timeout: 120_000 }, async () => {
    const db = await openDatabase({ dataDir: 'memory://' });
    try {
      await db.migrate();
      const agentId = '0000000d-0000-4000-8000-000000000001';
      await db.sql.query(`INSERT INTO "Agent" (id, name) VALUES ($1, 'fresh')`, [agentId]);
      const filter = resolveFilter({ runKinds: ['ANALYSIS', 'REVIEW'], text: 'x' }, new Date(T0));
      const needs = {
        content: false,
        metadata: false,
        targets: false,
        links: false,
        provenance: false,
        backlinks: null,
      };
      expect((await listMemoryPage(db, agentId, filter, { first: 1, after: null }, needs)).rows).toEqual([]);
      expect(await listMemoryTypes(db, agentId, filter)).toEqual([]);
    } finally {
      await db.close();
    }
  });
});

// B7: an agent's and a producer's runs, newest first and cursor-paged, with record counts and the
// failed / cancelled / empty marks the desk shows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAgentFixture,
  startHarness,
  startRun,
  writeOk,
  type AgentFixture,
  type Harness,
} from '../support/harness.js';

let h: Harness;
let fx: AgentFixture;
/** Run ids in start order: wrote two, failed, cancelled, succeeded empty, still running (on another producer). */
const ids: string[] = [];

const finish = (runId: string, status: string) =>
  h.ok('mutation($r: UUID!, $s: RunStatus!) { finishRun(runId: $r, status: $s) { id } }', {
    r: runId,
    s: status,
  });

beforeAll(async () => {
  h = await startHarness();
  fx = await createAgentFixture(h, { instruments: ['BTC', 'ETH'] });
  h.clock.set('2026-03-01T10:00:00Z');
  const plan: [string, string | null, number][] = [
    ['analysis', 'SUCCEEDED', 2],
    ['analysis', 'FAILED', 0],
    ['analysis', 'CANCELLED', 0],
    ['analysis', 'SUCCEEDED', 0],
    ['adhoc', null, 1],
  ];
  let boundary = Date.parse('2026-03-01T10:00:00Z');
  for (const [producer, status, records] of plan) {
    h.clock.advance(60_000);
    const scheduled = producer === 'analysis';
    const run = await startRun(
      h,
      fx.producers[producer]!.id,
      scheduled ? new Date(boundary).toISOString() : null,
    );
    boundary += 5 * 60_000;
    for (let i = 0; i < records; i++) {
      h.clock.advance(1000);
      await writeOk(h, run.token, { type: 'note', scope: 'AGENT', content: `record ${i}` });
    }
    if (status) await finish(run.runId, status);
    ids.push(run.runId);
  }
});
afterAll(async () => {
  await h?.close();
});

const AGENT_RUNS = `query($id: UUID!, $first: Int, $after: String, $status: [RunStatus!]) {
  agent(id: $id) { runs(first: $first, after: $after, status: $status) {
    edges { cursor node { id status recordCount empty evidenceBoundary startedAt finishedAt } }
    pageInfo { hasNextPage endCursor } } } }`;

type RunsPage = {
  edges: { cursor: string; node: { id: string; status: string; recordCount: number; empty: boolean } }[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
};
async function agentRuns(variables: Record<string, unknown>, token?: string) {
  const data = await h.ok<{ agent: { runs: RunsPage } }>(AGENT_RUNS, { id: fx.agentId, ...variables }, token);
  return data.agent.runs;
}

describe('B7: runs of an agent and of a producer', () => {
  it('B7: Agent.runs lists every run newest first with its status, record count and empty mark', async () => {
    const page = await agentRuns({}, fx.operatorToken);
    expect(page.edges.map((e) => [e.node.id, e.node.status, e.node.recordCount, e.node.empty])).toEqual([
      [ids[4], 'RUNNING', 1, false],
      [ids[3], 'SUCCEEDED', 0, true],
      [ids[2], 'CANCELLED', 0, false],
      [ids[1], 'FAILED', 0, false],
      [ids[0], 'SUCCEEDED', 2, false],
    ]);
    expect(page.pageInfo).toEqual({ hasNextPage: false, endCursor: page.edges[4]!.cursor });
  });

  it('B7: pages continue below the cursor without gaps or duplicates', async () => {
    const first = await agentRuns({ first: 2 });
    expect(first.pageInfo.hasNextPage).toBe(true);
    const second = await agentRuns({ first: 2, after: first.pageInfo.endCursor });
    const third = await agentRuns({ first: 2, after: second.pageInfo.endCursor });
    expect(third.pageInfo.hasNextPage).toBe(false);
    const seen = [...first.edges, ...second.edges, ...third.edges].map((e) => e.node.id);
    expect(seen).toEqual([...ids].reverse());
  });

  it('B7: status narrows the list before paging', async () => {
    const page = await agentRuns({ status: ['FAILED', 'CANCELLED'] });
    expect(page.edges.map((e) => e.node.id)).toEqual([ids[2], ids[1]]);
  });

  it('B7: Producer.runs lists only that producer’s runs', async () => {
    const data = await h.ok<{ agent: { producers: { name: string; runs: RunsPage }[] } }>(
      `query($id: UUID!) { agent(id: $id) { producers { name runs(first: 10) { edges { node { id recordCount } } } } } }`,
      { id: fx.agentId },
      fx.operatorToken,
    );
    const byName = Object.fromEntries(
      data.agent.producers.map((p) => [p.name, p.runs.edges.map((e) => e.node.id)]),
    );
    expect(byName.analysis).toEqual([ids[3], ids[2], ids[1], ids[0]]);
    expect(byName.adhoc).toEqual([ids[4]]);
    expect(byName.trading).toEqual([]);
  });

  it('B7: a bad page size or cursor is BAD_USER_INPUT naming the argument', async () => {
    for (const [variables, field] of [
      [{ first: 0 }, 'first'],
      [{ first: 201 }, 'first'],
      [{ after: 'not-a-cursor' }, 'after'],
    ] as const) {
      const result = await h.gql(AGENT_RUNS, { id: fx.agentId, ...variables });
      expect(result.errors?.[0]?.extensions?.code, JSON.stringify(result)).toBe('BAD_USER_INPUT');
      expect(JSON.stringify(result.errors)).toContain(field);
    }
  });

  it('B7: Analysis and Trading runs may not list runs', async () => {
    const run = await startRun(h, fx.producers.trading!.id);
    const result = await h.gql(AGENT_RUNS, { id: fx.agentId }, run.token);
    expect(result.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });
});

// Memory.linkedFrom (B13): what links to a record, under the caller's read rules (§1, S1),
// the same through every path that answers a Memory, newest first and bounded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CREATE_MEMORY,
  createAgentFixture,
  startHarness,
  startRun,
  writeOk,
  type AgentFixture,
  type Harness,
} from '../support/harness.js';
import { backlinksArgs } from '../../src/records/record-shape.js';

const BACKLINKS = 'linkedFrom { linkType sourceMemoryId sourceType sourceCreatedAt }';
const MEMORY = `query($id: UUID!) { memory(id: $id) { id ${BACKLINKS} } }`;
const IMPORT = `mutation($input: [ImportMemoryInput!]!) { importMemories(input: $input) { id ${BACKLINKS} } }`;

type Json = Record<string, any>;

let h: Harness;
let fx: AgentFixture;
let runs: Record<'analysis' | 'trading' | 'otherTrading' | 'review', { runId: string; token: string }>;
let original: Json;
let correction: Json;
let decision: Json;
let otherDecision: Json;
let review: Json;
let learning: Json;

/** Writes at `at` (the server clock) as `token`. */
async function writeAt(at: string, token: string, input: Json): Promise<Json> {
  h.clock.set(at);
  return writeOk(h, token, input);
}

const backlink = (source: Json, linkType: string) => ({
  linkType,
  sourceMemoryId: source.id,
  sourceType: source.type,
  sourceCreatedAt: source.createdAt,
});

beforeAll(async () => {
  h = await startHarness();
  h.clock.set('2026-03-02T10:00:00Z');
  fx = await createAgentFixture(h, {
    instruments: ['BTC', 'ETH'],
    producers: {
      adhoc: ['ANALYSIS', null],
      trading: ['TRADING', null],
      otherTrading: ['TRADING', null],
      review: ['REVIEW', null],
    },
  });
  runs = {
    analysis: await startRun(h, fx.producers.adhoc!.id),
    trading: await startRun(h, fx.producers.trading!.id),
    otherTrading: await startRun(h, fx.producers.otherTrading!.id),
    review: await startRun(h, fx.producers.review!.id),
  };
  const eth = { scope: 'INSTRUMENTS', instruments: ['ETH'] };
  original = await writeAt('2026-03-02T10:01:00Z', runs.analysis.token, {
    ...eth,
    type: 'funding',
    content: 'funding +0.03%',
  });
  correction = await writeAt('2026-03-02T10:02:00Z', runs.analysis.token, {
    ...eth,
    type: 'correction',
    content: 'it was +0.01%',
    links: [{ targetMemoryId: original.id, linkType: 'corrects' }],
  });
  learning = await writeAt('2026-03-02T10:03:00Z', runs.review.token, {
    type: 'agent_learnings',
    scope: 'AGENT',
    content: 'wait for confirmation',
  });
  const considered = [original, correction, learning].map((m) => ({
    targetMemoryId: m.id,
    linkType: 'considered',
  }));
  decision = await writeAt('2026-03-02T10:04:00Z', runs.trading.token, {
    ...eth,
    type: 'trading_decision',
    content: 'no trade',
    links: considered,
  });
  otherDecision = await writeAt('2026-03-02T10:05:00Z', runs.otherTrading.token, {
    ...eth,
    type: 'trading_decision',
    content: 'no trade either',
    links: [{ targetMemoryId: learning.id, linkType: 'considered' }],
  });
  review = await writeAt('2026-03-02T10:06:00Z', runs.review.token, {
    type: 'review',
    scope: 'AGENT',
    content: 'the decision was right',
    links: [
      { targetMemoryId: decision.id, linkType: 'reviews' },
      { targetMemoryId: learning.id, linkType: 'supports' },
    ],
  });
});
afterAll(async () => {
  await h.close();
});

describe('B13: Memory.linkedFrom', () => {
  it('B13: a record lists what links to it, newest linking record first; its corrections have linkType corrects', async () => {
    const { memory } = await h.ok(MEMORY, { id: original.id }, fx.operatorToken);
    expect(memory.linkedFrom).toEqual([backlink(decision, 'considered'), backlink(correction, 'corrects')]);
    const { memory: learned } = await h.ok(MEMORY, { id: learning.id }, fx.operatorToken);
    expect(learned.linkedFrom).toEqual([
      backlink(review, 'supports'),
      backlink(otherDecision, 'considered'),
      backlink(decision, 'considered'),
    ]);
    // Nothing links to the newest record.
    const { memory: newest } = await h.ok(MEMORY, { id: review.id }, fx.operatorToken);
    expect(newest.linkedFrom).toEqual([]);
  });

  it('§1: a Trading run sees only links from its own decisions, as memory(id) decides what it may read', async () => {
    // Its decision is readable; the review linking it is not, so the link is not shown.
    const { memory } = await h.ok(MEMORY, { id: decision.id }, runs.trading.token);
    expect(memory.linkedFrom).toEqual([]);
    const { memory: asOperator } = await h.ok(MEMORY, { id: decision.id }, fx.operatorToken);
    expect(asOperator.linkedFrom).toEqual([backlink(review, 'reviews')]);
    // The learnings of its trading context are full records: their links too follow its read rules.
    const context = `{ tradingContext(instrument: "ETH") { learnings { id ${BACKLINKS} } } }`;
    const { tradingContext } = await h.ok(context, {}, runs.trading.token);
    expect(tradingContext.learnings).toEqual([
      { id: learning.id, linkedFrom: [backlink(decision, 'considered')] },
    ]);
    const { tradingContext: asReview } = await h.ok(context, {}, runs.review.token);
    expect(asReview.learnings[0].linkedFrom.map((link: Json) => link.sourceMemoryId)).toEqual([
      review.id,
      otherDecision.id,
      decision.id,
    ]);
  });

  it('B13: the list, the audit and the admin answer the same links as memory(id)', async () => {
    const expected = [backlink(decision, 'considered'), backlink(correction, 'corrects')];
    const { memories } = await h.ok(
      `{ memories(filter: { types: ["funding"] }) { edges { node { id ${BACKLINKS} } } } }`,
      {},
      fx.operatorToken,
    );
    expect(memories.edges.map((edge: Json) => edge.node.linkedFrom)).toEqual([expected]);
    const { decisionAudit } = await h.ok(
      `query($id: UUID!) { decisionAudit(decisionId: $id) { decision { ${BACKLINKS} } linked { id ${BACKLINKS} } } }`,
      { id: decision.id },
      fx.operatorToken,
    );
    expect(decisionAudit.decision.linkedFrom).toEqual([backlink(review, 'reviews')]);
    expect(decisionAudit.linked[0]).toEqual({ id: original.id, linkedFrom: expected });
    const { memory: asAdmin } = await h.ok(MEMORY, { id: original.id });
    expect(asAdmin.linkedFrom).toEqual(expected);
  });

  it('W8: a new write has nothing linking to it; an idempotent retry answers the links made since', async () => {
    h.clock.set('2026-03-02T10:10:00Z');
    const query = CREATE_MEMORY.replace(
      'links { linkType targetMemoryId }',
      `links { linkType } ${BACKLINKS}`,
    );
    const input = { type: 'note', scope: 'AGENT', content: 'keyed', idempotencyKey: 'backlinks-1' };
    const first = await h.ok(query, { input }, runs.analysis.token);
    expect(first.createMemory.memory.linkedFrom).toEqual([]);
    const citing = await writeAt('2026-03-02T10:11:00Z', runs.review.token, {
      type: 'review',
      scope: 'AGENT',
      content: 'cites the keyed note',
      links: [{ targetMemoryId: first.createMemory.memory.id, linkType: 'supports' }],
    });
    const retry = await h.ok(query, { input }, runs.analysis.token);
    expect(retry.createMemory.memory.linkedFrom).toEqual([backlink(citing, 'supports')]);
  });

  it('I3: an import answers linkedFrom through Prisma; Prisma args and the record statement agree', async () => {
    const { importMemories } = await h.ok(IMPORT, {
      input: [
        {
          agentId: fx.agentId,
          type: 'legacy_note',
          scope: 'AGENT',
          content: 'imported, citing the learning',
          createdAt: '2026-03-01T00:00:00Z',
          links: [{ targetMemoryId: learning.id, linkType: 'cites' }],
        },
      ],
    });
    // Nothing can link to a record before it is stored.
    expect(importMemories[0].linkedFrom).toEqual([]);
    // The same args through Prisma (what importMemories plans) and through the record statement.
    const { memory } = await h.ok(MEMORY, { id: learning.id }, fx.operatorToken);
    expect(memory.linkedFrom.at(-1)).toMatchObject({
      sourceMemoryId: importMemories[0].id,
      linkType: 'cites',
    });
    const viaPrisma = await h.db.prisma.memory.findUniqueOrThrow({
      where: { agentId_id: { agentId: fx.agentId, id: learning.id } },
      select: { linkedBy: backlinksArgs({ agentId: fx.agentId }) },
    });
    expect(
      viaPrisma.linkedBy.map((link) => ({
        linkType: link.linkType,
        sourceMemoryId: link.memory.id,
        sourceType: link.memory.type,
        sourceCreatedAt: link.memory.createdAt.toISOString(),
      })),
    ).toEqual(memory.linkedFrom);
  });

  it('B13: linkedFrom is bounded: the 100 newest linking records', async () => {
    const target = await writeAt('2026-03-02T11:00:00Z', runs.analysis.token, {
      type: 'target',
      scope: 'AGENT',
      content: 'linked by many',
    });
    const input = Array.from({ length: 101 }, (_, i) => ({
      agentId: fx.agentId,
      type: 'legacy_note',
      scope: 'AGENT',
      content: `legacy ${i}`,
      createdAt: new Date(Date.parse('2026-03-02T12:00:00Z') + i * 1000).toISOString(),
      links: [{ targetMemoryId: target.id, linkType: 'cites' }],
    }));
    const { importMemories } = await h.ok(IMPORT.replace(` ${BACKLINKS}`, ''), { input });
    const { memory } = await h.ok(MEMORY, { id: target.id }, fx.operatorToken);
    expect(memory.linkedFrom.map((link: Json) => link.sourceMemoryId)).toEqual(
      importMemories
        .slice(1)
        .reverse()
        .map((m: Json) => m.id),
    );
  });
});

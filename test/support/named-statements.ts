// Every named statement the service's store can send, found by calling the store's own functions
// with every filter and option combination (as their callers pass them) on a database whose
// beforeStatement hook records each statement and stops it before it is sent: the statements' names,
// texts and values come from the code, not from a list kept beside it.
import { EVERY_RECORD, type ResolvedFilter } from '../../src/domain/memory-filter.js';
import { REPLAY_PAGE_SIZE } from '../../src/live/memory-added.js';
import { EXPORT_PAGE_SIZE } from '../../src/service/export-memories.js';
import { listMemoriesInSeqRange, listMemoryPage, listMemoryTypes } from '../../src/store/browse.js';
import type { Database } from '../../src/store/db.js';
import { searchTextsMatching } from '../../src/store/filter-sql.js';
import { findByIdempotencyKey } from '../../src/records/record-write.js';
import type { RecordReadFilter } from '../../src/records/record-shape.js';
import { findRecord, findRecordsByIds, listLearnings } from '../../src/records/record-reads.js';
import { WHOLE_RECORD, type RecordNeeds } from '../../src/records/record-rows.js';
import type { StatementHook } from '../../src/store/statement-observer.js';
import type { TokenLiveness } from '../../src/store/tokens.js';
import { DATASET_END, type PlanAgent, type PlanDataset } from './plan-dataset.js';

/** A named statement: its one text and every set of values it was sent with. */
export interface NamedStatement {
  name: string;
  text: string;
  valueSets: unknown[][];
}

class Captured extends Error {}

/** The hook for the database the statements are driven on: records a statement, never sends it. */
export class StatementCapture {
  private sent: { text: string; params: readonly unknown[]; name: string | undefined }[] | null = null;

  readonly hook: StatementHook = (statement) => {
    if (!this.sent) return;
    this.sent.push(statement);
    throw new Captured();
  };

  /** The statement `work` sends first (each store function below sends one). */
  async first(work: () => Promise<unknown>) {
    this.sent = [];
    try {
      await work();
    } catch (error) {
      if (!(error instanceof Captured)) throw error;
    }
    const [statement] = this.sent;
    this.sent = null;
    if (!statement) throw new Error('the work sent no statement');
    return statement;
  }
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * Values of every filter field with the dataset's extremes: the rarest type (1 %) and the commonest
 * (50 %), a recent and a months-old window, the rarest run kind, either freshness. Typed by
 * ResolvedFilter's keys, so a new filter field must be given values here.
 */
function filterChoices(dataset: PlanDataset): { [K in keyof ResolvedFilter]: ResolvedFilter[K][] } {
  const at = DATASET_END;
  return {
    types: [null, ['agent_learnings'], ['market_structure'], ['agent_learnings', 'market_structure']],
    window: [
      null,
      { from: new Date(at.getTime() - DAY), to: at, rolling: true },
      { from: new Date(at.getTime() - 120 * DAY), to: new Date(at.getTime() - 90 * DAY), rolling: false },
    ],
    text: [null, 'bearish'],
    instruments: [null, ['SOL']],
    producerIds: [null, [dataset.producerId]],
    runKinds: [null, ['REVIEW']],
    freshness: [null, { state: 'FRESH', at }, { state: 'STALE', at }],
  };
}

/** Every combination of the choices. */
function everyFilter(dataset: PlanDataset): ResolvedFilter[] {
  const choices = filterChoices(dataset);
  let filters: ResolvedFilter[] = [EVERY_RECORD];
  for (const key of Object.keys(EVERY_RECORD) as (keyof ResolvedFilter)[]) {
    const values = choices[key];
    if (!values) throw new Error(`no choices for the filter field ${key}`);
    filters = filters.flatMap((filter) => values.map((value) => ({ ...filter, [key]: value })));
  }
  return filters;
}

const subsets = <T>(items: readonly T[]): T[][] =>
  items.reduce<T[][]>((sets, item) => sets.flatMap((set) => [set, [...set, item]]), [[]]);

const PARTS = ['content', 'metadata', 'targets', 'links', 'provenance'] as const;

/**
 * The needs a statement is sent with. A record statement's needs only add columns (subqueries and
 * joins per record) to its outer query: every filter variant gets the lightest and the heaviest;
 * the tab's default view gets every combination of parts, and every backlink rule set.
 */
function needsSets(readable: Required<RecordReadFilter>) {
  const rules = Object.keys(readable) as (keyof RecordReadFilter)[];
  const partSets = subsets(PARTS).map((on) =>
    Object.fromEntries(PARTS.map((part) => [part, on.includes(part)])),
  );
  const withBacklinks = subsets(rules).map((chosen) => ({
    ...WHOLE_RECORD,
    backlinks: Object.fromEntries(chosen.map((rule) => [rule, readable[rule]])),
  }));
  const every: RecordNeeds[] = [
    ...partSets.map((parts) => ({ ...(parts as Omit<RecordNeeds, 'backlinks'>), backlinks: null })),
    ...withBacklinks,
  ];
  return { every, extremes: [every[0]!, withBacklinks.at(-1)!] };
}

/**
 * Sends every named statement the store's functions make as their callers call them, with values
 * drawn from the dataset, and returns them by name (same name, same text: checked).
 */
export async function sendEveryNamedStatement(
  db: Database,
  capture: StatementCapture,
  dataset: PlanDataset,
): Promise<NamedStatement[]> {
  const byName = new Map<string, NamedStatement>();
  const send = async (work: () => Promise<unknown>) => {
    const { text, params, name } = await capture.first(work);
    if (name === undefined) return;
    const known = byName.get(name) ?? { name, text, valueSets: [] };
    if (known.text !== text) throw new Error(`the named statement ${name} was sent with two texts`);
    const key = JSON.stringify(params);
    if (!known.valueSets.some((seen) => JSON.stringify(seen) === key)) known.valueSets.push([...params]);
    byName.set(name, known);
  };
  const { big, small } = dataset;
  const livenesses: (TokenLiveness | null)[] = [
    null,
    { kind: 'run', agentId: big.id, runId: dataset.runningRunId },
    { kind: 'operator', agentId: big.id, operatorTokenId: dataset.operatorTokenId },
  ];
  const needs = needsSets(dataset.readable);
  // Page 2 continues below a record two hours before the newest.
  const after = { createdAt: new Date(DATASET_END.getTime() - 2 * HOUR), id: dataset.recordId };
  const replays = (agent: PlanAgent) =>
    [agent.lastSeq - 100, Math.floor(agent.lastSeq / 2)].map((afterSeq) => ({
      afterSeq,
      upToSeq: agent.lastSeq,
    }));

  for (const filter of everyFilter(dataset)) {
    // The browser's pages (schema/browser.ts): first page and the next, with any liveness; a small
    // agent's first page too (a generic plan is made for neither).
    for (const liveness of livenesses)
      for (const some of needs.extremes)
        for (const position of [null, after])
          await send(() =>
            listMemoryPage(db, big.id, filter, { first: 50, after: position }, some, liveness),
          );
    for (const some of needs.extremes)
      await send(() => listMemoryPage(db, small.id, filter, { first: 50, after: null }, some));
    // The export's pages (service/export-memories.ts): whole records up to the committed seq.
    for (const position of [null, after]) {
      const page = { first: EXPORT_PAGE_SIZE, after: position, upToSeq: big.lastSeq };
      await send(() => listMemoryPage(db, big.id, filter, page, WHOLE_RECORD));
    }
    // The type counts (B1) ignore the filter's types.
    if (filter.types === null) {
      for (const liveness of livenesses) await send(() => listMemoryTypes(db, big.id, filter, liveness));
      await send(() => listMemoryTypes(db, small.id, filter));
    }
    // A resuming subscriber's replay (L2): a recent gap and a long one.
    for (const agent of [big, small])
      for (const range of replays(agent))
        await send(() => listMemoriesInSeqRange(db, agent.id, filter, range, REPLAY_PAGE_SIZE));
  }
  // The agent feed's fill (live/agent-feeds.ts): every record of a gap, 500 at a time.
  for (const agent of [big, small])
    for (const range of replays(agent))
      await send(() => listMemoriesInSeqRange(db, agent.id, EVERY_RECORD, range, 500));
  // The tab's default view (first page, all types, an operator token) with every needs set.
  for (const some of needs.every) {
    const page = { first: 50, after: null };
    await send(() => listMemoryPage(db, big.id, EVERY_RECORD, page, some, livenesses[2]!));
  }
  const rules = Object.keys(dataset.readable) as (keyof RecordReadFilter)[];
  for (const some of needs.extremes) {
    for (const chosen of subsets(rules)) {
      const readable = Object.fromEntries(chosen.map((rule) => [rule, dataset.readable[rule]]));
      for (const liveness of livenesses)
        await send(() => findRecord(db.sql, dataset.recordId, some, readable, liveness));
    }
    const ids = [dataset.recordId, ...dataset.linkedIds];
    for (const owner of [ids.map(() => big.id), big.id])
      await send(() => findRecordsByIds(db.sql, owner, ids, some));
    const at = new Date(DATASET_END.getTime() - 30 * DAY);
    await send(() => listLearnings(db.sql, { agentId: big.id, instrument: 'SOL', at }, some));
  }
  await send(() => findByIdempotencyKey(db, big.id, dataset.traderId, dataset.idempotencyKey));
  await send(() => searchTextsMatching(db.sql, big.id, dataset.recordId, ['bearish', 'funding -sol']));
  return [...byName.values()];
}

// B7: runs as the desk sees them — Agent.runs and Producer.runs (newest first, cursor-paged like
// `memories`), and each run's record count and "empty" mark.
import type { Caller } from '../auth/caller.js';
import { decodeCursor, encodeCursor } from '../domain/cursor.js';
import { InputError } from '../domain/errors.js';
import type { RunStatus } from '../domain/types.js';
import { countRunRecords, listRunPage, type RunWithCount } from '../store/runs.js';
import { RunRef } from './admin.js';
import { builder, needs } from './builder.js';
import { RunStatusEnum } from './enums.js';
import type { GraphQLContext } from './context.js';

export const DEFAULT_RUN_PAGE = 50;
export const MAX_RUN_PAGE = 200;

/** B7: the desk's reads (runs, health, board): operators, Review runs and the admin — not Analysis or Trading runs. */
export const insightReaders = needs('desk');

/** The runs' agent as the caller may read it (agent and producer fields already answered only visible agents). */
export function visibleTo(caller: Caller, agentId: string): boolean {
  return caller.kind === 'admin' || caller.agentId === agentId;
}

interface RunPage {
  runs: RunWithCount[];
  hasNextPage: boolean;
}

const RunEdge = builder.objectRef<RunWithCount>('RunEdge').implement({
  fields: (t) => ({
    cursor: t.string({
      description: 'Pass as `after` to continue below this run.',
      resolve: (run) => encodeCursor({ createdAt: run.startedAt, id: run.id }),
    }),
    node: t.field({ type: RunRef, resolve: (run) => run }),
  }),
});

const RunPageInfo = builder.objectRef<RunPage>('RunPageInfo').implement({
  fields: (t) => ({
    hasNextPage: t.exposeBoolean('hasNextPage'),
    endCursor: t.string({
      nullable: true,
      resolve: ({ runs }) => {
        const last = runs.at(-1);
        return last ? encodeCursor({ createdAt: last.startedAt, id: last.id }) : null;
      },
    }),
  }),
});

const RunConnection = builder.objectRef<RunPage>('RunConnection').implement({
  description: 'Runs newest first (startedAt, then id), B7.',
  fields: (t) => ({
    edges: t.field({ type: [RunEdge], resolve: (page) => page.runs }),
    pageInfo: t.field({ type: RunPageInfo, resolve: (page) => page }),
  }),
});

async function runPage(
  ctx: GraphQLContext,
  target: { agentId: string; producerId?: string },
  args: { first?: number | null; after?: string | null; status?: RunStatus[] | null },
): Promise<RunPage> {
  const first = args.first ?? DEFAULT_RUN_PAGE;
  if (!Number.isInteger(first) || first < 1 || first > MAX_RUN_PAGE)
    throw new InputError(`first must be between 1 and ${MAX_RUN_PAGE}`, 'first');
  const after = args.after ? decodeCursor(args.after) : null;
  if (args.after && !after) throw new InputError('after is not a cursor of this list', 'after');
  if (!ctx.caller || !visibleTo(ctx.caller, target.agentId)) return { runs: [], hasNextPage: false };
  return listRunPage(ctx.db, { ...target, statuses: args.status, first, after });
}

const RUNS_DESCRIPTION = 'newest first (operators, Review runs, the admin).';

builder.prismaObjectFields('Agent', (t) => ({
  runs: t.field({
    ...insightReaders,
    type: RunConnection,
    description: `B7: the agent’s runs ${RUNS_DESCRIPTION}`,
    args: {
      first: t.arg.int({ required: false, defaultValue: DEFAULT_RUN_PAGE }),
      after: t.arg.string({ required: false, description: 'The cursor of an edge; continues below it.' }),
      status: t.arg({ type: [RunStatusEnum], required: false, description: 'Only runs in these states.' }),
    },
    resolve: (agent, args, ctx) => runPage(ctx, { agentId: agent.id }, args),
  }),
}));

builder.prismaObjectFields('Producer', (t) => ({
  runs: t.field({
    ...insightReaders,
    type: RunConnection,
    description: `B7: the producer’s runs ${RUNS_DESCRIPTION}`,
    args: {
      first: t.arg.int({ required: false, defaultValue: DEFAULT_RUN_PAGE }),
      after: t.arg.string({ required: false, description: 'The cursor of an edge; continues below it.' }),
      status: t.arg({ type: [RunStatusEnum], required: false, description: 'Only runs in these states.' }),
    },
    resolve: (producer, args, ctx) =>
      runPage(ctx, { agentId: producer.agentId, producerId: producer.id }, args),
  }),
}));

/** B7: a run's record count — from its page when loaded with one, else one count for this run. */
async function recordCountOf(run: RunWithCount, ctx: GraphQLContext): Promise<number> {
  if (run.recordCount !== undefined) return run.recordCount;
  const counts = await countRunRecords(ctx.db, run.agentId, [run]);
  return counts.get(run.id) ?? 0;
}

builder.prismaObjectFields('Run', (t) => ({
  recordCount: t.int({
    description: 'B7: how many records the run wrote.',
    resolve: (run, _args, ctx) => recordCountOf(run as RunWithCount, ctx),
  }),
  empty: t.boolean({
    description: 'B7: SUCCEEDED without writing any record.',
    resolve: async (run, _args, ctx) =>
      run.status === 'SUCCEEDED' && (await recordCountOf(run as RunWithCount, ctx)) === 0,
  }),
}));

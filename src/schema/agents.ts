// Who am I and which agents can I see: `viewer`, `agents`, `agent(id)`. Operator and run tokens see
// only their own agent; a foreign id answers like an unknown one (S1).
import { queryFromInfo } from '@pothos/plugin-prisma';
import { agentFilter } from '../auth/access.js';
import type { Caller } from '../auth/caller.js';
import { AgentRef, RunRef } from './admin.js';
import { builder } from './builder.js';

/** The agents a caller may see (S1): the admin every agent, everyone else only its own. */
function visibleAgents(caller: Caller): { id?: string } {
  const { agentId } = agentFilter(caller);
  return agentId === undefined ? {} : { id: agentId };
}

const ViewerKindEnum = builder.enumType('ViewerKind', { values: ['ADMIN', 'OPERATOR', 'RUN'] as const });

interface ViewerShape {
  kind: 'ADMIN' | 'OPERATOR' | 'RUN';
  agentId: string | null;
  runId: string | null;
}

const Viewer = builder.objectRef<ViewerShape>('Viewer').implement({
  description: 'The caller behind the bearer token.',
  fields: (t) => ({
    kind: t.expose('kind', { type: ViewerKindEnum }),
    // Plain fields planning their own query: the admin token has no agent and no run, so there is
    // nothing to read (a prismaField's query would go unused).
    agent: t.field({
      type: AgentRef,
      nullable: true,
      description: 'The agent an operator or run token belongs to (null for the admin token).',
      resolve: (viewer, _args, ctx, info) =>
        viewer.agentId
          ? ctx.db.prisma.agent.findUnique({
              ...queryFromInfo({ context: ctx, info }),
              where: { id: viewer.agentId },
            })
          : null,
    }),
    run: t.field({
      type: RunRef,
      nullable: true,
      description: 'The run of a run token.',
      resolve: (viewer, _args, ctx, info) =>
        viewer.runId && viewer.agentId
          ? ctx.db.prisma.run.findUnique({
              ...queryFromInfo({ context: ctx, info }),
              where: { agentId_id: { agentId: viewer.agentId, id: viewer.runId } },
            })
          : null,
    }),
  }),
});

// Any authenticated token may ask (S1); what it sees is narrowed to its own agent below.
builder.queryFields((t) => ({
  viewer: t.withAuth({ identify: true }).field({
    type: Viewer,
    description: 'Who the token is: its kind, its agent and (for a run token) its run.',
    resolve: (_root, _args, { caller }): ViewerShape => {
      if (caller.kind === 'admin') return { kind: 'ADMIN', agentId: null, runId: null };
      if (caller.kind === 'operator') return { kind: 'OPERATOR', agentId: caller.agentId, runId: null };
      return { kind: 'RUN', agentId: caller.agentId, runId: caller.run.id };
    },
  }),
  agents: t.withAuth({ identify: true }).prismaField({
    type: ['Agent'],
    description: 'Admin: every agent, by name. Operator and run tokens: their own agent only.',
    resolve: (query, _root, _args, ctx) =>
      ctx.db.prisma.agent.findMany({
        ...query,
        where: visibleAgents(ctx.caller),
        orderBy: { name: 'asc' },
      }),
  }),
  agent: t.withAuth({ identify: true }).prismaField({
    type: 'Agent',
    nullable: true,
    description: 'One agent with its producers and selected instruments; null when unknown or not visible.',
    args: { id: t.arg({ type: 'UUID', required: true }) },
    // S1: a foreign id is filtered out by the same statement that reads the agent, so it answers like an unknown one.
    resolve: (query, _root, { id }, ctx) =>
      ctx.db.prisma.agent.findFirst({ ...query, where: { AND: [{ id }, visibleAgents(ctx.caller)] } }),
  }),
}));

// The scheduler's operations (admin token): agents, instruments, producers, runs, operator tokens, imports.
import * as admin from '../service/admin.js';
import { importMemories } from '../service/import-memories.js';
import { builder, needs } from './builder.js';
import { RunKindEnum, RunStatusEnum } from './enums.js';
import { findRecordsByIds } from '../records/record-reads.js';
import { MemoryRef, recordInputFields } from './memory.js';
import { recordNeeds } from './record-needs.js';

/** S1: the scheduler's operations and the operator tokens are the admin token's alone. */
export const adminOnly = needs('administer');

export const AgentRef = builder.prismaObject('Agent', {
  fields: (t) => ({
    id: t.expose('id', { type: 'UUID' }),
    name: t.exposeString('name'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    instruments: t.stringList({
      description: 'The currently selected instruments.',
      select: {
        selections: {
          where: { deselectedAt: null },
          select: { instrumentId: true },
          orderBy: { instrumentId: 'asc' },
        },
      },
      resolve: (agent) => agent.selections.map((s) => s.instrumentId),
    }),
    producers: t.relation('producers', { query: { orderBy: { name: 'asc' } } }),
    operatorTokens: t.prismaField({
      ...adminOnly,
      type: ['OperatorToken'],
      description: 'Operator tokens issued for this agent, newest first (admin token only).',
      resolve: (query, agent, _args, ctx) =>
        ctx.db.prisma.operatorToken.findMany({
          ...query,
          where: { agentId: agent.id },
          orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        }),
    }),
  }),
});

builder.prismaObject('OperatorToken', {
  description: 'An operator token of one agent (the secret itself is shown once, at creation).',
  fields: (t) => ({
    id: t.expose('id', { type: 'UUID' }),
    agentId: t.expose('agentId', { type: 'UUID' }),
    label: t.exposeString('label', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    revokedAt: t.expose('revokedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'S6: set by revokeOperatorToken; the token authenticates nothing since.',
    }),
  }),
});

export const ProducerRef = builder.prismaObject('Producer', {
  fields: (t) => ({
    id: t.expose('id', { type: 'UUID' }),
    agentId: t.expose('agentId', { type: 'UUID' }),
    kind: t.expose('kind', { type: RunKindEnum }),
    name: t.exposeString('name'),
    schedule: t.exposeString('schedule', { nullable: true }),
    enabled: t.exposeBoolean('enabled'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

export const RunRef = builder.prismaObject('Run', {
  fields: (t) => ({
    id: t.expose('id', { type: 'UUID' }),
    agentId: t.expose('agentId', { type: 'UUID' }),
    producerId: t.expose('producerId', { type: 'UUID' }),
    kind: t.expose('kind', { type: RunKindEnum }),
    schedule: t.exposeString('schedule', { nullable: true }),
    evidenceBoundary: t.expose('evidenceBoundary', { type: 'DateTime', nullable: true }),
    status: t.expose('status', { type: RunStatusEnum }),
    startedAt: t.expose('startedAt', { type: 'DateTime' }),
    finishedAt: t.expose('finishedAt', { type: 'DateTime', nullable: true }),
  }),
});

const StartRunPayload = builder
  .objectRef<{ token: string; runId: string; agentId: string }>('StartRunPayload')
  .implement({
    fields: (t) => ({
      token: t.exposeString('token', {
        description: 'The run bearer token, shown once; valid while the run is RUNNING.',
      }),
      run: t.prismaField({
        type: 'Run',
        resolve: (query, parent, _args, ctx) =>
          ctx.db.prisma.run.findUniqueOrThrow({
            ...query,
            where: { agentId_id: { agentId: parent.agentId, id: parent.runId } },
          }),
      }),
    }),
  });

const OperatorTokenPayload = builder
  .objectRef<{ token: string; agentId: string; operatorTokenId: string }>('OperatorTokenPayload')
  .implement({
    fields: (t) => ({
      token: t.exposeString('token', { description: 'The operator bearer token for one agent, shown once.' }),
      agentId: t.expose('agentId', { type: 'UUID' }),
      operatorToken: t.prismaField({
        type: 'OperatorToken',
        resolve: (query, parent, _args, ctx) =>
          ctx.db.prisma.operatorToken.findUniqueOrThrow({
            ...query,
            where: { agentId_id: { agentId: parent.agentId, id: parent.operatorTokenId } },
          }),
      }),
    }),
  });

const CreateAgentInput = builder.inputType('CreateAgentInput', {
  fields: (t) => ({ name: t.string({ required: true }) }),
});
const UpsertInstrumentInput = builder.inputType('UpsertInstrumentInput', {
  fields: (t) => ({
    id: t.string({ required: true }),
    active: t.boolean({ required: false, defaultValue: true }),
  }),
});
const CreateProducerInput = builder.inputType('CreateProducerInput', {
  fields: (t) => ({
    agentId: t.field({ type: 'UUID', required: true }),
    kind: t.field({ type: RunKindEnum, required: true }),
    name: t.string({ required: true }),
    schedule: t.string({ required: false, description: '1m 3m 5m 15m 30m 1h 2h 4h 8h 12h 1d, or null' }),
  }),
});
const StartRunInput = builder.inputType('StartRunInput', {
  fields: (t) => ({
    producerId: t.field({ type: 'UUID', required: true }),
    evidenceBoundary: t.field({
      type: 'DateTime',
      required: false,
      description:
        'The candle close a scheduled run analyses; required for scheduled producers, refused otherwise.',
    }),
  }),
});
const ImportMemoryInputRef = builder.inputType('ImportMemoryInput', {
  fields: (t) => ({
    agentId: t.field({ type: 'UUID', required: true }),
    ...recordInputFields(t),
    sourceRunId: t.field({ type: 'UUID', required: false }),
    createdAt: t.field({ type: 'DateTime', required: true }),
  }),
});

// The catalog: agents, their instruments and producers.
builder.mutationFields((t) => ({
  createAgent: t.prismaField({
    ...adminOnly,
    type: 'Agent',
    args: { input: t.arg({ type: CreateAgentInput, required: true }) },
    resolve: async (query, _root, { input }, ctx) => {
      const agent = await admin.createAgent(ctx.db, input);
      return ctx.db.prisma.agent.findUniqueOrThrow({ ...query, where: { id: agent.id } });
    },
  }),
  upsertInstrument: t.prismaField({
    ...adminOnly,
    type: 'Instrument',
    args: { input: t.arg({ type: UpsertInstrumentInput, required: true }) },
    resolve: (_query, _root, { input }, ctx) =>
      admin.upsertInstrument(ctx.db, { id: input.id, active: input.active ?? true }),
  }),
  setAgentInstruments: t.prismaField({
    ...adminOnly,
    type: 'Agent',
    description: 'Replaces the selected set; deselected instruments keep their history and old targets.',
    args: {
      agentId: t.arg({ type: 'UUID', required: true }),
      instrumentIds: t.arg.stringList({ required: true }),
    },
    resolve: async (query, _root, args, ctx) => {
      await admin.setAgentInstruments(ctx.db, args.agentId, args.instrumentIds, ctx.now());
      return ctx.db.prisma.agent.findUniqueOrThrow({ ...query, where: { id: args.agentId } });
    },
  }),
  createProducer: t.prismaField({
    ...adminOnly,
    type: 'Producer',
    args: { input: t.arg({ type: CreateProducerInput, required: true }) },
    resolve: async (query, _root, { input }, ctx) => {
      const producer = await admin.createProducer(ctx.db, input, ctx.now());
      return ctx.db.prisma.producer.findUniqueOrThrow({
        ...query,
        where: { agentId_id: { agentId: producer.agentId, id: producer.id } },
      });
    },
  }),
  setProducerEnabled: t.prismaField({
    ...adminOnly,
    type: 'Producer',
    args: {
      producerId: t.arg({ type: 'UUID', required: true }),
      enabled: t.arg.boolean({ required: true }),
    },
    resolve: async (query, _root, args, ctx) => {
      const producer = await admin.setProducerEnabled(ctx.db, args.producerId, args.enabled, ctx.now());
      return ctx.db.prisma.producer.findUniqueOrThrow({
        ...query,
        where: { agentId_id: { agentId: producer.agentId, id: producer.id } },
      });
    },
  }),
}));

// Runs, operator tokens and legacy imports.
builder.mutationFields((t) => ({
  startRun: t.field({
    ...adminOnly,
    type: StartRunPayload,
    args: { input: t.arg({ type: StartRunInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const { run, token } = await admin.startRun(ctx, input, ctx.now());
      return { token, runId: run.id, agentId: run.agentId };
    },
  }),
  finishRun: t.prismaField({
    ...adminOnly,
    type: 'Run',
    args: {
      runId: t.arg({ type: 'UUID', required: true }),
      status: t.arg({ type: RunStatusEnum, required: true }),
    },
    resolve: async (query, _root, args, ctx) => {
      const { agentId } = await admin.finishRun(ctx, args.runId, args.status, ctx.now());
      return ctx.db.prisma.run.findUniqueOrThrow({
        ...query,
        where: { agentId_id: { agentId, id: args.runId } },
      });
    },
  }),
  createOperatorToken: t.field({
    ...adminOnly,
    type: OperatorTokenPayload,
    description: 'A new operator token for one agent; `label` (≤ 128 characters) says who it is for.',
    args: {
      agentId: t.arg({ type: 'UUID', required: true }),
      label: t.arg.string({ required: false }),
    },
    resolve: async (_root, args, ctx) => {
      const { token, agentId, operatorToken } = await admin.createOperatorToken(
        ctx.db,
        args.agentId,
        args.label,
      );
      return { token, agentId, operatorTokenId: operatorToken.id };
    },
  }),
  revokeOperatorToken: t.prismaField({
    ...adminOnly,
    type: 'OperatorToken',
    description:
      'S6, S10: the token stops working at once; its open WebSockets (closed 4403), SSE streams and exports end within 1 s on every instance.',
    args: { id: t.arg({ type: 'UUID', required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const revoked = await admin.revokeOperatorToken(ctx, args.id, ctx.now());
      return ctx.db.prisma.operatorToken.findUniqueOrThrow({
        ...query,
        where: { agentId_id: { agentId: revoked.agentId, id: revoked.id } },
      });
    },
  }),
  importMemories: t.field({
    ...adminOnly,
    type: [MemoryRef],
    description: 'Legacy records stored verbatim in one transaction (I1–I4); an error names the bad item.',
    args: { input: t.arg({ type: [ImportMemoryInputRef], required: true }) },
    resolve: async (_root, { input }, ctx, info) => {
      const imported = await importMemories(ctx, input);
      const ids = imported.map((memory) => memory.id);
      // D2: a batch of one agent is read back on its shard; a batch of several, on theirs.
      const agentIds = imported.map((memory) => memory.agentId);
      const agents = new Set(agentIds).size === 1 ? agentIds[0]! : agentIds;
      return findRecordsByIds(ctx.db.sql, agents, ids, recordNeeds(info, ctx.caller));
    },
  }),
}));

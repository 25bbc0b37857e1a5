// The Memory record (§1), its reads (`memory`) and the write mutation (`createMemory`, W1–W8).
import type { SchemaTypes } from '@pothos/core';
import { memoryReadFilter } from '../auth/access.js';
import {
  IdempotencyConflictError,
  InvalidMemoryLinkError,
  InvalidMemoryTargetError,
  MemoryValidationError,
  MemoryWriteError,
  ReservedMemoryTypeError,
} from '../domain/errors.js';
import { freshnessAt } from '../domain/expiry.js';
import type { MemoryLink, Provenance } from '../domain/types.js';
import { writeMemory, type WrittenMemory } from '../service/write-memory.js';
import { toProvenance } from '../records/record-shape.js';
import { findRecord } from '../records/record-reads.js';
import type { LoadedRecord } from '../records/record-rows.js';
import { builder, checksTheTokenItself, needs } from './builder.js';
import { recordNeeds } from './record-needs.js';
import { FreshnessEnum, MemoryScopeEnum, RunKindEnum, RunStatusEnum } from './enums.js';

export const ProvenanceRef = builder.objectRef<Provenance>('Provenance').implement({
  description: 'The run that wrote a record (server-owned, from the writing token).',
  fields: (t) => ({
    runId: t.expose('runId', { type: 'UUID' }),
    producerId: t.expose('producerId', { type: 'UUID' }),
    producerName: t.exposeString('producerName'),
    kind: t.expose('kind', { type: RunKindEnum }),
    schedule: t.exposeString('schedule', { nullable: true }),
    evidenceBoundary: t.expose('evidenceBoundary', { type: 'DateTime', nullable: true }),
    runStatus: t.expose('runStatus', { type: RunStatusEnum }),
  }),
});

export const MemoryLinkRef = builder.objectRef<MemoryLink>('MemoryLink').implement({
  fields: (t) => ({
    linkType: t.exposeString('linkType'),
    targetMemoryId: t.expose('targetMemoryId', { type: 'UUID' }),
  }),
});

/** A record as a resolver answers it: the parts its selection needs are loaded (./record-needs.ts). */
export type RecordShape = Omit<LoadedRecord, 'seq'>;

/** A part the selection needed but the resolver did not load is a bug, never a silent null. */
function loaded<T>(value: T | undefined, part: string): T {
  if (value === undefined) throw new Error(`Memory.${part} was selected but not loaded`);
  return value;
}

export const MemoryRef = builder.objectRef<RecordShape>('Memory').implement({
  description: 'One immutable record of an agent.',
  // Plain fields over the loaded row: what a page needs is worked out once per document
  // (recordNeeds) and read by one statement; no per-field planning or loading.
  fields: (t) => ({
    id: t.expose('id', { type: 'UUID' }),
    agentId: t.expose('agentId', { type: 'UUID' }),
    type: t.exposeString('type'),
    scope: t.expose('scope', { type: MemoryScopeEnum }),
    instruments: t.stringList({
      description: 'Targeted instruments in written order (empty for agent-wide records).',
      resolve: (memory) => loaded(memory.targets, 'instruments').map((target) => target.instrumentId),
    }),
    content: t.string({ resolve: (memory) => loaded(memory.content, 'content') }),
    metadata: t.field({ type: 'JSON', resolve: (memory) => loaded(memory.metadata, 'metadata') }),
    timeframe: t.exposeString('timeframe', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', nullable: true }),
    expiryPolicy: t.exposeString('expiryPolicy', { nullable: true }),
    freshness: t.field({
      type: FreshnessEnum,
      description: 'FRESH while now < expiresAt or without expiry; evaluated now.',
      resolve: (memory, _args, ctx) => freshnessAt(memory.expiresAt, ctx.now()),
    }),
    provenance: t.field({
      type: ProvenanceRef,
      nullable: true,
      description: 'Null only for imported records without run provenance.',
      resolve: (memory) => {
        const run = loaded(memory.sourceRun, 'provenance');
        return run ? toProvenance(run) : null;
      },
    }),
    links: t.field({ type: [MemoryLinkRef], resolve: (memory) => loaded(memory.links, 'links') }),
  }),
});

builder.queryField('memory', (t) =>
  // Any authenticated token may ask; a record it may not read answers null, like an unknown id (S1).
  t.withAuth({ record: true }).field({
    // Its statement checks the token itself (RequestCaller.readLive): no `live` scope first (S14).
    ...checksTheTokenItself,
    type: MemoryRef,
    nullable: true,
    description: 'One record by id; null when it does not exist or is not readable by this token.',
    args: { id: t.arg({ type: 'UUID', required: true }) },
    // One statement with what the selection needs; planning it tells the fields their data is there.
    resolve: (_root, { id }, ctx, info) =>
      ctx.auth.readLive(
        (liveness) =>
          findRecord(ctx.db.sql, id, recordNeeds(info, ctx.caller), memoryReadFilter(ctx.caller), liveness),
        (record) => record === null,
      ),
  }),
);

// Write errors: one object type per typed store error, all implementing MemoryWriteError.
const MemoryWriteErrorRef = builder.interfaceRef<MemoryWriteError>('MemoryWriteError').implement({
  fields: (t) => ({
    message: t.exposeString('message'),
    code: t.exposeString('code'),
  }),
});

builder.objectType(InvalidMemoryLinkError, {
  name: 'InvalidMemoryLink',
  interfaces: [MemoryWriteErrorRef],
  fields: (t) => ({ linkIndex: t.exposeInt('linkIndex') }),
});
builder.objectType(InvalidMemoryTargetError, {
  name: 'InvalidMemoryTarget',
  interfaces: [MemoryWriteErrorRef],
  fields: (t) => ({
    instrumentIndex: t.exposeInt('instrumentIndex'),
    selected: t.stringList({
      description: 'M11: the active instruments this agent selects (what a target may be).',
      resolve: (error) => [...(error.selected ?? [])],
    }),
  }),
});
builder.objectType(MemoryValidationError, {
  name: 'MemoryValidationError',
  interfaces: [MemoryWriteErrorRef],
  fields: (t) => ({ field: t.exposeString('field') }),
});
builder.objectType(ReservedMemoryTypeError, {
  name: 'ReservedMemoryType',
  interfaces: [MemoryWriteErrorRef],
});
builder.objectType(IdempotencyConflictError, {
  name: 'IdempotencyConflict',
  interfaces: [MemoryWriteErrorRef],
});

const CreateMemorySuccessRef = builder.objectRef<WrittenMemory>('CreateMemorySuccess').implement({
  fields: (t) => ({
    memory: t.field({
      type: MemoryRef,
      // The write already holds the whole record (a fresh one as stored, a retry as read once).
      resolve: (written) => written.record,
    }),
    expiresAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'The stamped (Analysis) or explicit (Trading/Review) expiry; X5.',
      resolve: (written) => written.record.expiresAt,
    }),
  }),
});

export const MemoryLinkInputRef = builder.inputType('MemoryLinkInput', {
  fields: (t) => ({
    targetMemoryId: t.field({ type: 'UUID', required: true }),
    linkType: t.string({ required: true }),
  }),
});

/** The record fields a write and a legacy import share (W1, W4, W7 apply to both). */
type SchemaTypesOf<B> = B extends PothosSchemaTypes.SchemaBuilder<infer T extends SchemaTypes> ? T : never;

export function recordInputFields(
  t: PothosSchemaTypes.InputFieldBuilder<SchemaTypesOf<typeof builder>, 'InputObject'>,
) {
  return {
    type: t.string({ required: true }),
    scope: t.field({ type: MemoryScopeEnum, required: true }),
    instruments: t.stringList({ required: false }),
    content: t.string({ required: true }),
    metadata: t.field({ type: 'JSON', required: false }),
    timeframe: t.string({ required: false }),
    links: t.field({ type: [MemoryLinkInputRef], required: false }),
  };
}

const CreateMemoryInputRef = builder.inputType('CreateMemoryInput', {
  fields: (t) => ({
    ...recordInputFields(t),
    idempotencyKey: t.string({ required: false }),
  }),
});

builder.mutationField('createMemory', (t) =>
  // W1: only runs write; provenance comes from the run token.
  t.withAuth(needs('write').authScopes).field({
    unauthorizedError: needs('write').unauthorizedError,
    // W9: its insert checks the run is RUNNING in the same statement: no `live` scope first.
    ...checksTheTokenItself,
    type: CreateMemorySuccessRef,
    description: 'Writes one record for the calling run (run token). Provenance comes from the token.',
    errors: {
      directResult: true,
      union: { name: 'CreateMemoryResult' },
      types: [
        InvalidMemoryLinkError,
        InvalidMemoryTargetError,
        MemoryValidationError,
        ReservedMemoryTypeError,
        IdempotencyConflictError,
      ],
    },
    args: { input: t.arg({ type: CreateMemoryInputRef, required: true }) },
    resolve: (_root, { input }, ctx) =>
      writeMemory(ctx, ctx.caller.run, input, 'graphql', ctx.caller.unverified === true),
  }),
);

// Subscription.memoryAdded (L1–L2): the same filter and cursors as the `memories` list.
import { agentForRead } from '../auth/access.js';
import { InputError } from '../domain/errors.js';
import { parseAfterCursor, resolveFilter } from '../domain/memory-filter.js';
import { encodeCursor } from '../domain/cursor.js';
import { MemoryAddedSource } from '../live/memory-added.js';
import type { Database } from '../store/db.js';
import { seqBeforePosition } from '../store/browse.js';
import { findRecord } from '../records/record-reads.js';
import { needsKey } from '../records/record-rows.js';
import { recordNeeds } from './record-needs.js';
import { builder, needs } from './builder.js';
import { MemoryEdgeRef, MemoryFilterRef } from './browser.js';

/**
 * L2: where a resume starts — the seq in `after` (a live edge's cursor or a list edge's); a cursor
 * issued before seqs existed resumes after its (createdAt, id) position. BAD_USER_INPUT otherwise.
 */
async function resumeSeq(db: Database, agentId: string, after: string): Promise<number> {
  const parsed = parseAfterCursor(after);
  if (!parsed) throw new InputError('after is not a cursor returned by this API', 'after');
  const { seq } = parsed.position;
  return typeof seq === 'number' ? seq : seqBeforePosition(db, agentId, parsed.position);
}

builder.subscriptionField('memoryAdded', (t) =>
  // Checked when subscribed (authorizeOnSubscribe): run tokens may not subscribe (L1).
  t.withAuth(needs('subscribe').authScopes).field({
    unauthorizedError: needs('subscribe').unauthorizedError,
    type: MemoryEdgeRef,
    description:
      'New records of the agent that match the filter, once each, in order. With `after` (the cursor of the last record seen) the missed ones are replayed first (L2).',
    args: {
      agentId: t.arg({ type: 'UUID', required: false }),
      filter: t.arg({ type: MemoryFilterRef, required: false }),
      after: t.arg.string({ required: false }),
    },
    subscribe: async (_root, args, ctx) => {
      const agentId = agentForRead(ctx.caller, args.agentId);
      const filter = resolveFilter(args.filter, ctx.now());
      const afterSeq = args.after ? await resumeSeq(ctx.db, agentId, args.after) : null;
      const { caller } = ctx;
      return new MemoryAddedSource({
        // The agent's feed and its reads are shared by every subscriber: no one's end cancels them.
        db: ctx.liveDb,
        feeds: ctx.feeds,
        agentId,
        filter,
        now: ctx.now,
        afterSeq,
        // S6, L4: revoking the operator token ends the subscription (SSE too, not only WebSockets).
        watchToken:
          caller.kind === 'admin'
            ? undefined
            : (onRevoked) => ctx.sessions.register(caller.tokenKey, onRevoked),
        metrics: ctx.metrics,
      });
    },
    // Every subscriber whose selection needs the same parts shares one read of the new record
    // (fan-out): one statement with its targets, links and provenance.
    resolve: async (record, _args, ctx, info) => {
      const needs = recordNeeds(info, ctx.caller, ['node']);
      // D2: an operator's records are its agent's. The admin's subscribers of several agents may share
      // one render (one document), so the admin's record is found without its agent (anyAgent).
      const readable = ctx.caller.kind === 'admin' ? {} : { agentId: ctx.caller.agentId };
      // The read rules' values are part of what is loaded (linkedFrom), not of the statement's name.
      const key = `${record.id}:${needsKey(needs)}:${JSON.stringify(needs.backlinks)}`;
      const node = await ctx.sharedLoads.get(key, async () => {
        const loaded = await findRecord(ctx.liveDb.sql, record.id, needs, readable);
        if (!loaded) throw new Error(`memory ${record.id} was announced but is not stored`);
        return loaded;
      });
      return { cursor: () => encodeCursor(record), node };
    },
  }),
);

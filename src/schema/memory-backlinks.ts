// B13 Memory.linkedFrom: what links to a record — the other direction of `links`, under the caller's read
// rules (§1), so the operator page opens every record from every record that cites it.
import { linkedFromReadFilter } from '../auth/access.js';
import { backlinksArgs, type Backlink } from '../records/record-shape.js';
import { builder } from './builder.js';
import { MemoryRef } from './memory.js';

const MemoryBacklinkRef = builder.objectRef<Backlink>('MemoryBacklink').implement({
  description: 'A link to this record from another record of the same agent.',
  fields: (t) => ({
    linkType: t.exposeString('linkType', { description: 'As the linking record wrote it (`corrects`: C6).' }),
    sourceMemoryId: t.field({ type: 'UUID', resolve: (link) => link.memory.id }),
    sourceType: t.string({ resolve: (link) => link.memory.type }),
    sourceCreatedAt: t.field({ type: 'DateTime', resolve: (link) => link.memory.createdAt }),
  }),
});

builder.objectField(MemoryRef, 'linkedFrom', (t) =>
  t.field({
    type: [MemoryBacklinkRef],
    description:
      'Links to this record from records the caller may read (as `memory(id)` decides: a Trading run sees only its own decisions), newest linking record first, at most 100. Corrections of this record have linkType `corrects`.',
    // Loaded by the statement that reads the record (record-rows.ts, asked by recordNeeds).
    resolve: async (memory, _args, ctx) => {
      if (memory.linkedBy) return memory.linkedBy;
      // A record answered by a write is not read back: a new one has no links to it yet, a retry's
      // (W8) may have some.
      const readable = linkedFromReadFilter(ctx.caller);
      return ctx.db.prisma.memoryLink.findMany({
        ...backlinksArgs(readable),
        where: { agentId: memory.agentId, targetMemoryId: memory.id, memory: readable },
      });
    },
  }),
);

// The operator browser (B1–B4): `memories` (filtered keyset pages) and `memoryTypes` (discovered types).
import { agentForRead } from '../auth/access.js';
import { InputError } from '../domain/errors.js';
import {
  DEFAULT_PAGE_SIZE,
  pageCursorEncoder,
  MAX_PAGE_SIZE,
  resolvePageFilter,
  resolveTypeCountFilter,
} from '../domain/memory-filter.js';
import { MAX_FILTER_VALUES, MAX_SEARCH_TEXT, MAX_SEARCH_WORDS } from '../domain/filter-fields.js';
import { listMemoryPage, listMemoryTypes, type MemoryTypeCount } from '../store/browse.js';
import type { CursorPosition } from '../domain/cursor.js';
import type { Database } from '../store/db.js';
import { builder, checksTheTokenItself, needs } from './builder.js';
import type { GraphQLContext } from './context.js';
import { FreshnessEnum, RunKindEnum } from './enums.js';
import { MemoryRef, type RecordShape } from './memory.js';
import { recordNeeds } from './record-needs.js';

export const RollingWindowEnum = builder.enumType('RollingWindow', {
  values: ['LAST_1H', 'LAST_6H', 'LAST_24H'] as const,
});

export const TimeWindowRef = builder.inputType('TimeWindowInput', {
  description: 'Either a rolling window or an inclusive range of local dates in `timeZone` (B3).',
  fields: (t) => ({
    rolling: t.field({ type: RollingWindowEnum, required: false }),
    fromDate: t.field({ type: 'Date', required: false }),
    toDate: t.field({ type: 'Date', required: false, description: 'Inclusive; defaults to fromDate.' }),
    timeZone: t.string({ required: false, description: 'IANA zone of the local dates; defaults to UTC.' }),
  }),
});

export const MemoryFilterRef = builder.inputType('MemoryFilter', {
  description:
    'Which records of the agent a list, its type counts and live updates show: every field given must hold (AND); a list field matches any of its values. Applied in SQL before pagination (B2).',
  fields: (t) => ({
    types: t.stringList({ required: false, description: 'Only these types; null or empty means all.' }),
    window: t.field({ type: TimeWindowRef, required: false }),
    text: t.string({
      required: false,
      description: `Full-text search over the content and the string values of the metadata (English stemming, so "entries" finds "entry"): words must all occur, "quoted words" in that order, \`or\` between alternatives, \`-word\` excludes. Never a syntax error; blank means no search; at most ${MAX_SEARCH_TEXT} characters and ${MAX_SEARCH_WORDS} words (\`or\` not counted), else BAD_USER_INPUT naming text. Does not change the order (newest first).`,
    }),
    instruments: t.stringList({
      required: false,
      description: `Records targeting at least one of these instruments (at most ${MAX_FILTER_VALUES}); agent-wide records (scope AGENT) target none and are left out.`,
    }),
    producerIds: t.field({
      type: ['UUID'],
      required: false,
      description: `Records written by runs of these producers (at most ${MAX_FILTER_VALUES}); another agent's producer matches nothing.`,
    }),
    runKinds: t.field({
      type: [RunKindEnum],
      required: false,
      description: 'Records written by runs of these kinds; imported records without provenance have none.',
    }),
    freshness: t.field({
      type: FreshnessEnum,
      required: false,
      description:
        'FRESH: no expiry or expiring after now; STALE: expired. A list evaluates it when requested (each page anew), live updates when the record arrives.',
    }),
  }),
});

const ResolvedWindowRef = builder.objectRef<{ from: Date; to: Date }>('ResolvedWindow').implement({
  description: 'Absolute bounds of a time filter: from <= createdAt < to.',
  fields: (t) => ({
    from: t.expose('from', { type: 'DateTime' }),
    to: t.expose('to', { type: 'DateTime' }),
  }),
});

export interface MemoryEdgeShape {
  /** Encoded when selected (an MCP list or a count-only client never pays for it). */
  cursor: () => string;
  node: RecordShape;
}

/** Also the payload of live updates (`memoryAdded`). */
export const MemoryEdgeRef = builder.objectRef<MemoryEdgeShape>('MemoryEdge').implement({
  fields: (t) => ({
    cursor: t.string({
      description: 'Pass as `after` to continue below this record.',
      resolve: (edge) => edge.cursor(),
    }),
    node: t.field({ type: MemoryRef, resolve: (edge) => edge.node }),
  }),
});

const PageInfoRef = builder
  .objectRef<{ hasNextPage: boolean; endCursor: string | null }>('PageInfo')
  .implement({
    fields: (t) => ({
      hasNextPage: t.exposeBoolean('hasNextPage'),
      endCursor: t.exposeString('endCursor', { nullable: true }),
    }),
  });

const MemoryConnectionRef = builder
  .objectRef<{
    edges: MemoryEdgeShape[];
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
    window: { from: Date; to: Date } | null;
  }>('MemoryConnection')
  .implement({
    fields: (t) => ({
      edges: t.field({ type: [MemoryEdgeRef], resolve: (connection) => connection.edges }),
      pageInfo: t.field({ type: PageInfoRef, resolve: (connection) => connection.pageInfo }),
      window: t.field({
        type: ResolvedWindowRef,
        nullable: true,
        description: 'The resolved time filter, identical on every page of one list (B4); null without one.',
        resolve: (connection) => connection.window,
      }),
    }),
  });

const MemoryTypeCountRef = builder.objectRef<MemoryTypeCount>('MemoryTypeCount').implement({
  fields: (t) => ({
    type: t.exposeString('type'),
    count: t.exposeInt('count'),
  }),
});

/**
 * S8: a search, or any list an MCP tool asks for, is an expensive read — counted against the token
 * and run on the expensive pool; any other page runs as it is.
 */
function costed<T>(ctx: GraphQLContext, search: boolean, read: (db: Database) => Promise<T>): Promise<T> {
  if (!ctx.caller || !(search || ctx.mcpListCall)) return read(ctx.db);
  return ctx.budget.run(ctx.caller.tokenKey, ctx.db, read, ctx.signal);
}

// Browsing (S1, §1): not Trading runs; agentForRead picks the agent and refuses another's.
builder.queryFields((t) => ({
  memories: t.withAuth(needs('browse').authScopes).field({
    unauthorizedError: needs('browse').unauthorizedError,
    // Its statement checks the token itself (RequestCaller.readLive): no `live` scope first (S14).
    ...checksTheTokenItself,
    type: MemoryConnectionRef,
    description:
      'Records of one agent, newest first, filtered before pagination (B2–B4). Operator or Review token; admin passes agentId.',
    args: {
      agentId: t.arg({ type: 'UUID', required: false }),
      filter: t.arg({ type: MemoryFilterRef, required: false }),
      first: t.arg.int({ required: false, defaultValue: DEFAULT_PAGE_SIZE }),
      after: t.arg.string({ required: false, description: 'The cursor of an edge; continues below it.' }),
    },
    resolve: async (_root, args, ctx, info) => {
      const agentId = agentForRead(ctx.caller, args.agentId);
      const first = args.first ?? DEFAULT_PAGE_SIZE;
      if (!Number.isInteger(first) || first < 1 || first > MAX_PAGE_SIZE) {
        throw new InputError(`first must be between 1 and ${MAX_PAGE_SIZE}`, 'first');
      }
      const { filter, position, digest } = resolvePageFilter(agentId, args.filter, args.after, ctx.now());
      // The node selection (instruments, links, provenance …) is loaded by the page's one statement.
      const needs = recordNeeds(info, ctx.caller, ['edges', 'node']);
      const page = await costed(ctx, filter.text !== null, (db) =>
        ctx.auth.readLive(
          (liveness) => listMemoryPage(db, agentId, filter, { first, after: position }, needs, liveness),
          ({ rows }) => rows.length === 0,
        ),
      );
      const window = filter.window ? { from: filter.window.from, to: filter.window.to } : null;
      // The seq makes a list edge's cursor a resume point for memoryAdded too (L2).
      const encode = pageCursorEncoder(window, digest);
      const cursorOf = (position: CursorPosition) => () => encode(position);
      const edges = page.rows.map((node) => ({
        cursor: cursorOf({ createdAt: node.createdAt, id: node.id, seq: node.seq }),
        node,
      }));
      return {
        edges,
        pageInfo: { hasNextPage: page.hasNextPage, endCursor: edges.at(-1)?.cursor() ?? null },
        window,
      };
    },
  }),
  memoryTypes: t.withAuth(needs('browse').authScopes).field({
    unauthorizedError: needs('browse').unauthorizedError,
    // Its statement checks the token itself (RequestCaller.readLive): no `live` scope first (S14).
    ...checksTheTokenItself,
    type: [MemoryTypeCountRef],
    description:
      'The types stored for one agent with the counts of the records the filter leaves, sorted by name (B1): every filter field applies except `types` itself, so a list with some types selected has as many records as the sum of their counts. Only types with such records are listed.',
    args: {
      agentId: t.arg({ type: 'UUID', required: false }),
      window: t.arg({
        type: TimeWindowRef,
        required: false,
        description: 'Shorthand for `filter.window`; sending both is BAD_USER_INPUT (field `window`).',
      }),
      filter: t.arg({
        type: MemoryFilterRef,
        required: false,
        description: "The list's filter (its `types` are ignored here).",
      }),
    },
    resolve: async (_root, args, ctx) => {
      const agentId = agentForRead(ctx.caller, args.agentId);
      const filter = resolveTypeCountFilter(args.filter, args.window, ctx.now());
      return costed(ctx, filter.text !== null, (db) =>
        ctx.auth.readLive(
          (liveness) => listMemoryTypes(db, agentId, filter, liveness),
          (types) => types.length === 0,
        ),
      );
    },
  }),
}));

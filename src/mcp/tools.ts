// The MCP tools, defined once for both transports: the capability each needs (auth/access-table.ts),
// its zod input and output, and
// the GraphQL operation (or REST write) it runs as the caller — the service applies every rule.
import { z } from 'zod';
import { MAX_SEARCH_TEXT, MAX_SEARCH_WORDS } from '../domain/filter-fields.js';
import type { ServiceExecutor } from './executor.js';
import { getProducerHealth } from './health-tools.js';
import { defineTool, type Tool, type ToolOutcome } from './tool.js';
import { timeWindow, windowArgs } from './window-args.js';
import {
  DecisionAudit,
  Memory,
  MemoryRecord,
  MemoryTypeCount,
  PageInfo,
  ResolvedWindow,
  selectionOf,
  snakeKeys,
  TradingContext,
  Uuid,
  type ToolFailure,
} from './shapes.js';

const NOT_FOUND = (what: string): ToolOutcome => ({
  ok: false,
  // The same words for an unknown and an unreadable id, and never the id itself (S1: no oracle).
  failure: { error: `No ${what} with this id is readable by this token`, code: 'not_found' },
});

const MEMORY = selectionOf(Memory);

const WriteSuccess = z.object({
  memory_id: Uuid,
  expires_at: z.string().nullable(),
  // M12: said in so many words, because a null deadline is easy to read past.
  never_expires: z.boolean().describe('true: no deadline, FRESH forever'),
  memory: MemoryRecord,
});

const writeMemory = defineTool({
  name: 'write_memory',
  title: 'Write a memory',
  needs: 'write',
  readOnly: false,
  serviceValidates: true,
  input: z.object({
    type: z.string().describe('snake_case, e.g. ema_handoff'),
    scope: z.enum(['AGENT', 'INSTRUMENTS']),
    instruments: z.array(z.string()).optional(),
    content: z.string(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    timeframe: z.string().optional().describe('e.g. 5m, 1h'),
    links: z.array(z.object({ target_memory_id: Uuid, link_type: z.string() })).optional(),
    idempotency_key: z.string().optional(),
  }),
  output: WriteSuccess,
  // The REST mirror's body has the tool's spelling, and its 4xx body is the typed failure as is.
  summary: (v) =>
    `Stored ${v.memory.type} ${v.memory_id}; ${v.never_expires ? 'it never expires' : `expires_at ${v.expires_at}`}.`,
  async run(args, service) {
    const { status, body } = await service.postMemory(args);
    if (status !== 201) return { ok: false, failure: body as ToolFailure };
    const memory = body.memory as { id: string };
    const expiresAt = body.expires_at ?? null;
    return {
      ok: true,
      value: { memory_id: memory.id, expires_at: expiresAt, never_expires: expiresAt === null, memory },
    };
  },
});

const getTradingContext = defineTool({
  name: 'get_trading_context',
  title: 'Trading context',
  needs: 'context',
  readOnly: true,
  input: z.object({
    instrument: z.string(),
    at: z.string().optional().describe('ISO instant; default now'),
  }),
  output: TradingContext,
  summary: (v) =>
    `${v.instrument}${v.selected ? '' : ' (not selected)'}: ${v.entries.filter((e) => e.status === 'FRESH').length} FRESH of ${v.entries.length} entries, ${v.corrections.length} corrections, ${v.learnings.length} learnings.`,
  async run(args, service) {
    const data = await service.graphql<{ tradingContext: { known: boolean } & Record<string, unknown> }>(
      `query($instrument: String!, $at: DateTime) { tradingContext(instrument: $instrument, at: $at) { known ${selectionOf(TradingContext)} } }`,
      { instrument: args.instrument, at: args.at ?? null },
    );
    const { known, ...context } = data.tradingContext;
    // M11: a name the catalog does not hold (DOGE, btc) is the agent's mistake, not an empty context.
    if (!known) {
      const { selected } = await instrumentsOf(service);
      return {
        ok: false,
        failure: {
          error: `instrument ${JSON.stringify(args.instrument)} is not in the catalog; names are the venue's exact, case-sensitive spelling`,
          code: 'unknown_instrument',
          selected,
        },
      };
    }
    return { ok: true, value: snakeKeys(context) as Record<string, unknown> };
  },
});

/** M11: what the agent selects (active only: what a write may target) and the active catalog. */
async function instrumentsOf(service: ServiceExecutor): Promise<{ selected: string[]; catalog: string[] }> {
  const data = await service.graphql<{
    viewer: { agent: { instruments: string[] } | null };
    instruments: { id: string }[];
  }>('{ viewer { agent { instruments } } instruments { id } }');
  const catalog = data.instruments.map((instrument) => instrument.id);
  const active = new Set(catalog);
  const selected = (data.viewer.agent?.instruments ?? []).filter((id) => active.has(id));
  return { selected, catalog };
}

const listInstruments = defineTool({
  name: 'list_instruments',
  title: 'List instruments',
  needs: 'instruments',
  readOnly: true,
  input: z.object({}),
  output: z.object({ selected: z.array(z.string()), catalog: z.array(z.string()) }),
  summary: (v) =>
    `Selected: ${v.selected.join(', ') || 'none'}; ${v.catalog.length} active instruments in the catalog.`,
  async run(_args, service) {
    return { ok: true, value: await instrumentsOf(service) };
  },
});

/** A page is capped below the API's 200: a tool result lands in a model's context window. */
const MAX_TOOL_PAGE = 50;

const listMemories = defineTool({
  name: 'list_memories',
  title: 'List memories',
  needs: 'browse',
  readOnly: true,
  input: z.object({
    types: z.array(z.string()).optional(),
    text: z
      .string()
      .optional()
      .describe(
        `Search: all words; "a phrase"; or; -word. ≤ ${MAX_SEARCH_TEXT} chars, ${MAX_SEARCH_WORDS} words.`,
      ),
    instruments: z.array(z.string()).optional().describe('Records targeting one of these.'),
    ...windowArgs,
    first: z.number().int().min(1).max(MAX_TOOL_PAGE).default(10),
    after: z.string().optional().describe('page_info.end_cursor'),
  }),
  output: z.object({
    memories: z.array(MemoryRecord),
    page_info: PageInfo,
    window: ResolvedWindow.nullable(),
  }),
  summary: (v) =>
    `${v.memories.length} records${v.page_info.has_next_page ? '; more with after = page_info.end_cursor' : ''}.`,
  async run(args, service) {
    const data = await service.graphql<{
      memories: { edges: { node: unknown }[] } & Record<string, unknown>;
    }>(
      `query($filter: MemoryFilter, $first: Int, $after: String) {
        memories(filter: $filter, first: $first, after: $after) {
          edges { node { ${MEMORY} } } pageInfo { hasNextPage endCursor } window { from to } } }`,
      {
        filter: {
          types: args.types ?? null,
          text: args.text ?? null,
          instruments: args.instruments ?? null,
          window: timeWindow(args),
        },
        first: args.first,
        after: args.after ?? null,
      },
      { listCall: true },
    );
    const { edges, pageInfo, window } = data.memories;
    return {
      ok: true,
      value: {
        memories: edges.map((edge) => snakeKeys(edge.node)),
        page_info: snakeKeys(pageInfo),
        window: window ?? null,
      },
    };
  },
});

const listMemoryTypes = defineTool({
  name: 'list_memory_types',
  title: 'List memory types',
  needs: 'browse',
  readOnly: true,
  input: z.object(windowArgs),
  output: z.object({ types: z.array(MemoryTypeCount) }),
  summary: (v) => `${v.types.length} memory types.`,
  async run(args, service) {
    const data = await service.graphql<{ memoryTypes: unknown[] }>(
      'query($window: TimeWindowInput) { memoryTypes(window: $window) { type count } }',
      { window: timeWindow(args) },
      { listCall: true },
    );
    return { ok: true, value: { types: data.memoryTypes } };
  },
});

const getMemory = defineTool({
  name: 'get_memory',
  title: 'Get a memory',
  needs: 'record',
  readOnly: true,
  input: z.object({ id: Uuid }),
  output: z.object({ memory: Memory }),
  summary: (v) => `${v.memory.type} ${v.memory.id}.`,
  async run(args, service) {
    const data = await service.graphql<{ memory: unknown }>(
      `query($id: UUID!) { memory(id: $id) { ${MEMORY} } }`,
      { id: args.id },
    );
    return data.memory ? { ok: true, value: { memory: snakeKeys(data.memory) } } : NOT_FOUND('memory');
  },
});

const getDecisionAudit = defineTool({
  name: 'get_decision_audit',
  title: 'Decision audit',
  needs: 'audit',
  readOnly: true,
  input: z.object({ decision_id: Uuid }),
  output: DecisionAudit,
  summary: (v) =>
    `Decision ${v.decision.id}: ${v.linked.length} linked records, ${v.contexts.length} contexts.`,
  async run(args, service) {
    const data = await service.graphql<{ decisionAudit: unknown }>(
      `query($id: UUID!) { decisionAudit(decisionId: $id) { ${selectionOf(DecisionAudit)} } }`,
      { id: args.decision_id },
    );
    return data.decisionAudit
      ? { ok: true, value: snakeKeys(data.decisionAudit) as Record<string, unknown> }
      : NOT_FOUND('trading decision');
  },
});

export const TOOLS: readonly Tool[] = [
  writeMemory,
  listInstruments,
  getTradingContext,
  listMemories,
  listMemoryTypes,
  getMemory,
  getDecisionAudit,
  getProducerHealth,
];

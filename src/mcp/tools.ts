// The MCP tools, defined once for both transports: who sees each, its zod input and output, and
// the GraphQL operation (or REST write) it runs as the caller — the service applies every rule.
import { z } from 'zod';
import { MAX_SEARCH_TEXT, MAX_SEARCH_WORDS } from '../domain/filter-fields.js';
import type { ServiceExecutor } from './executor.js';
import { getProducerHealth } from './health-tools.js';
import { DESCRIPTIONS } from './protocol.js';
import {
  DecisionAudit,
  Memory,
  MemoryTypeCount,
  PageInfo,
  ResolvedWindow,
  selectionOf,
  snakeKeys,
  TradingContext,
  Uuid,
  type ToolFailure,
} from './shapes.js';

/** Who a caller is for tool visibility: operators, or a run of one kind. The admin token sees no tool. */
export type Audience = 'OPERATOR' | 'ANALYSIS' | 'TRADING' | 'REVIEW';

type ToolOutcome = { ok: true; value: Record<string, unknown> } | { ok: false; failure: ToolFailure };

export interface Tool {
  name: keyof typeof DESCRIPTIONS;
  title: string;
  audience: readonly Audience[];
  readOnly: boolean;
  /** The service validates the arguments itself (the REST write): its 400 body is then the answer as is. */
  serviceValidates?: true;
  input: z.ZodObject;
  output: z.ZodObject;
  /** Issue 27: a tool whose listing must stay small leaves its output schema out (the result is still structured). */
  listsOutput?: false;
  run(args: Record<string, unknown>, service: ServiceExecutor): Promise<ToolOutcome>;
}

/** Keeps each tool's handler typed by its own input schema. */
function defineTool<I extends z.ZodObject>(
  tool: Omit<Tool, 'input' | 'run'> & {
    input: I;
    run(args: z.infer<I>, service: ServiceExecutor): Promise<ToolOutcome>;
  },
): Tool {
  return tool as unknown as Tool;
}

const RUNS = ['ANALYSIS', 'TRADING', 'REVIEW'] as const;
const NOT_FOUND = (what: string): ToolOutcome => ({
  ok: false,
  // The same words for an unknown and an unreadable id, and never the id itself (S1: no oracle).
  failure: { error: `No ${what} with this id is readable by this token`, code: 'not_found' },
});

const windowArgs = {
  window: z.enum(['1h', '6h', '24h']).optional().describe('A rolling window ending now.'),
  from_date: z.string().optional().describe('YYYY-MM-DD, first local date (inclusive); instead of window.'),
  to_date: z.string().optional().describe('YYYY-MM-DD, last local date (inclusive); defaults to from_date.'),
  time_zone: z.string().optional().describe('IANA zone of the dates, e.g. Europe/London; default UTC.'),
};
const ROLLING = { '1h': 'LAST_1H', '6h': 'LAST_6H', '24h': 'LAST_24H' } as const;

/** The tools' window arguments as the API's TimeWindowInput (null: no time filter). */
function timeWindow(args: z.infer<z.ZodObject<typeof windowArgs>>) {
  if (!args.window && !args.from_date && !args.to_date && !args.time_zone) return null;
  return {
    rolling: args.window ? ROLLING[args.window] : null,
    fromDate: args.from_date ?? null,
    toDate: args.to_date ?? null,
    timeZone: args.time_zone ?? null,
  };
}

const MEMORY = selectionOf(Memory);

const WriteSuccess = z.object({
  memory_id: Uuid.describe('Cite this id unchanged (e.g. in the order a decision allows).'),
  expires_at: z.string().nullable().describe('The deadline the service stamped or accepted (X5).'),
  memory: Memory,
});

const writeMemory = defineTool({
  name: 'write_memory',
  title: 'Write a memory',
  audience: RUNS,
  readOnly: false,
  serviceValidates: true,
  input: z.object({
    type: z.string().describe('^[a-z][a-z0-9_]{0,63}$, e.g. ema_handoff; reserved types per run kind.'),
    scope: z.enum(['AGENT', 'INSTRUMENTS']),
    instruments: z.array(z.string()).optional().describe('Targets for scope INSTRUMENTS.'),
    content: z.string().describe('The prose of the record (1-65,536 characters).'),
    metadata: z.record(z.string(), z.unknown()).optional().describe('A JSON object (at most 256 KiB).'),
    timeframe: z.string().optional().describe('Evidence timeframe, e.g. 5m, 1h, 1d.'),
    links: z
      .array(z.object({ target_memory_id: Uuid, link_type: z.string() }))
      .optional()
      .describe('At most 64; ids copied unchanged; link_type e.g. considered, corrects, supports.'),
    idempotency_key: z
      .string()
      .optional()
      .describe('≤ 128 characters; a retry with the same key and input is safe.'),
  }),
  output: WriteSuccess,
  // The REST mirror's body has the tool's spelling, and its 4xx body is the typed failure as is.
  async run(args, service) {
    const { status, body } = await service.postMemory(args);
    if (status !== 201) return { ok: false, failure: body as ToolFailure };
    const memory = body.memory as { id: string };
    return { ok: true, value: { memory_id: memory.id, expires_at: body.expires_at, memory } };
  },
});

const getTradingContext = defineTool({
  name: 'get_trading_context',
  title: 'Get the trading context',
  audience: ['OPERATOR', ...RUNS],
  readOnly: true,
  input: z.object({
    instrument: z.string().describe('Exact canonical name, e.g. ETH or kPEPE.'),
    at: z.string().optional().describe('ISO-8601 instant to look back to; default now.'),
  }),
  output: TradingContext,
  async run(args, service) {
    const data = await service.graphql<{ tradingContext: unknown }>(
      `query($instrument: String!, $at: DateTime) { tradingContext(instrument: $instrument, at: $at) { ${selectionOf(TradingContext)} } }`,
      { instrument: args.instrument, at: args.at ?? null },
    );
    return { ok: true, value: snakeKeys(data.tradingContext) as Record<string, unknown> };
  },
});

/** A page is capped below the API's 200: a tool result lands in a model's context window. */
const MAX_TOOL_PAGE = 50;

const listMemories = defineTool({
  name: 'list_memories',
  title: 'List memories',
  audience: ['OPERATOR', 'ANALYSIS', 'REVIEW'],
  readOnly: true,
  input: z.object({
    types: z.array(z.string()).optional().describe('Only these types (see list_memory_types).'),
    text: z
      .string()
      .optional()
      .describe(
        `Full-text search over content and metadata text: all words must occur; "quoted words" in order, or, -word to exclude. At most ${MAX_SEARCH_TEXT} characters and ${MAX_SEARCH_WORDS} words.`,
      ),
    instruments: z
      .array(z.string())
      .optional()
      .describe('Only records targeting one of these instruments (agent-wide records are left out).'),
    ...windowArgs,
    first: z.number().int().min(1).max(MAX_TOOL_PAGE).default(10),
    after: z.string().optional().describe('page_info.end_cursor of the previous page.'),
  }),
  output: z.object({ memories: z.array(Memory), page_info: PageInfo, window: ResolvedWindow.nullable() }),
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
  audience: ['OPERATOR', 'ANALYSIS', 'REVIEW'],
  readOnly: true,
  input: z.object(windowArgs),
  output: z.object({ types: z.array(MemoryTypeCount) }),
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
  audience: ['OPERATOR', ...RUNS],
  readOnly: true,
  input: z.object({ id: Uuid.describe('A memory id copied unchanged.') }),
  output: z.object({ memory: Memory }),
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
  title: 'Audit a trading decision',
  audience: ['OPERATOR', 'REVIEW'],
  readOnly: true,
  input: z.object({ decision_id: Uuid.describe('The memory_id of a trading_decision.') }),
  output: DecisionAudit,
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
  getTradingContext,
  listMemories,
  listMemoryTypes,
  getMemory,
  getDecisionAudit,
  getProducerHealth,
];

/** The tools one caller may see and call (api-contract, MCP); everything else does not exist for it. */
export function toolsFor(audience: Audience | null): Tool[] {
  return audience ? TOOLS.filter((tool) => tool.audience.includes(audience)) : [];
}

/** Who the token is, asked once per MCP request (HTTP) or session (stdio) through `viewer`. */
export async function audienceOf(service: ServiceExecutor): Promise<Audience | null> {
  const { viewer } = await service.graphql<{ viewer: { kind: string; run: { kind: Audience } | null } }>(
    '{ viewer { kind run { kind } } }',
  );
  if (viewer.kind === 'OPERATOR') return 'OPERATOR';
  if (viewer.kind === 'RUN' && viewer.run) return viewer.run.kind;
  // The admin token (the scheduler) acts for no agent; its operations are GraphQL's admin fields.
  return null;
}

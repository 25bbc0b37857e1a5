// B12 support: records imported with chosen instants and awkward text, the `memories`
// pages to compare an export with, and the export read back — NDJSON line by line, CSV through a
// real parser (PostgreSQL's own COPY … CSV reader, in a PGlite of its own).
import http from 'node:http';
import { PGlite } from '@electric-sql/pglite';
import type { Harness } from './harness.js';

/** The CSV columns in the contract's order (docs/api.md). */
export const CSV_HEADER = [
  'id',
  'created_at',
  'type',
  'scope',
  'instruments',
  'producer',
  'run_id',
  'run_kind',
  'run_status',
  'expires_at',
  'freshness',
  'timeframe',
  'content',
  'metadata',
  'links',
] as const;

export type CsvRow = Record<(typeof CSV_HEADER)[number], string>;

export const TYPES = ['ema_handoff', 'regime_shift', 'position_note', 'review_note'] as const;

/** Contents a CSV writer gets wrong: separators, quotes, line breaks, non-ASCII, formula starts. */
export const AWKWARD_CONTENTS = [
  'comma, "quoted" and\nnewline',
  'CRLF line\r\nsecond line, still one field',
  'unicode: 日本語 — émigré — 🚀 — e\u0301',
  '=HYPERLINK("http://evil.example","click")',
  '+1 buy',
  '-2 sell',
  '@SUM(A1)',
  '\ttabbed',
  '\rcarriage return first',
  'ends with a comma,',
  '"',
  '  padded  ',
];

export interface ImportPlan {
  agentId: string;
  count: number;
  /** Instant of record 0; record i is `i / 2` steps later (pairs share an instant: ties go by id). */
  start: string;
  stepMs: number;
  /** A run of the agent: every fifth record names it (provenance). */
  sourceRunId?: string;
  content?: (i: number) => string;
}

/** Imports `plan.count` records in batches (I1: stored as given); returns their ids in import order. */
export async function importRecords(h: Harness, plan: ImportPlan): Promise<string[]> {
  const ids: string[] = [];
  const batch = 100;
  for (let first = 0; first < plan.count; first += batch) {
    const input = [];
    for (let i = first; i < Math.min(plan.count, first + batch); i++) {
      const scope = i % 3 === 0 ? 'AGENT' : 'INSTRUMENTS';
      input.push({
        agentId: plan.agentId,
        type: TYPES[i % TYPES.length],
        scope,
        instruments: scope === 'AGENT' ? null : i % 3 === 1 ? ['ETH'] : ['BTC', 'ETH'],
        content: plan.content?.(i) ?? AWKWARD_CONTENTS[i % 40] ?? `record ${i}, plain`,
        metadata: i % 4 === 3 ? null : { i, note: 'a, "b"\nc', nested: { emoji: '🚀', list: [1, 2] } },
        timeframe: i % 2 ? '5m' : null,
        createdAt: new Date(Date.parse(plan.start) + Math.floor(i / 2) * plan.stepMs).toISOString(),
        sourceRunId: plan.sourceRunId && i % 5 === 0 ? plan.sourceRunId : null,
        links: i >= batch && i % 7 === 0 ? [{ targetMemoryId: ids[i - batch], linkType: 'evidence' }] : null,
      });
    }
    const data = await h.ok<{ importMemories: { id: string }[] }>(
      'mutation($input: [ImportMemoryInput!]!) { importMemories(input: $input) { id } }',
      { input },
    );
    ids.push(...data.importMemories.map((record) => record.id));
  }
  return ids;
}

/** Every id of a `memories` list, page by page (200 a page), newest first. */
export async function memoriesIds(
  h: Harness,
  token: string,
  filter: Record<string, unknown> | null,
  agentId: string | null = null,
): Promise<string[]> {
  const ids: string[] = [];
  let after: string | null = null;
  for (let page = 0; page < 100; page++) {
    const data: {
      memories: { edges: { node: { id: string } }[]; pageInfo: { hasNextPage: boolean; endCursor: string } };
    } = await h.ok(
      `query($a: UUID, $f: MemoryFilter, $after: String) {
        memories(agentId: $a, filter: $f, first: 200, after: $after) {
          edges { node { id } } pageInfo { hasNextPage endCursor } } }`,
      { a: agentId, f: filter, after },
      token,
    );
    ids.push(...data.memories.edges.map((edge) => edge.node.id));
    if (!data.memories.pageInfo.hasNextPage) return ids;
    after = data.memories.pageInfo.endCursor;
  }
  throw new Error('more than 100 pages');
}

/** GET /api/v1/export?<query> in-process. */
export function getExport(h: Harness, query: string, token: string | null): Promise<Response> {
  return h.fetch(`/api/v1/export?${query}`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
}

/** NDJSON: every line one JSON object, the last one ended by a newline too. */
export function ndjsonRecords(text: string): Record<string, any>[] {
  if (text === '') return [];
  if (!text.endsWith('\n')) throw new Error('the NDJSON body does not end with a newline');
  return text
    .slice(0, -1)
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, any>);
}

let parser: PGlite | null = null;

/**
 * The CSV as PostgreSQL's COPY reads it (RFC 4180 quoting, HEADER MATCH: the header row must name
 * exactly these columns); an empty unquoted field comes back as ''.
 */
export async function parseCsv(text: string): Promise<CsvRow[]> {
  parser ??= await PGlite.create();
  const columns = CSV_HEADER.join(', ');
  await parser.exec(
    `DROP TABLE IF EXISTS parsed; CREATE TABLE parsed (n serial, ${CSV_HEADER.map((c) => `${c} text`).join(', ')})`,
  );
  await parser.query(`COPY parsed (${columns}) FROM '/dev/blob' WITH (FORMAT csv, HEADER match)`, [], {
    blob: new Blob([text]),
  });
  const rows = await parser.query<Record<string, string | null>>(`SELECT ${columns} FROM parsed ORDER BY n`);
  return rows.rows.map(
    (row) => Object.fromEntries(CSV_HEADER.map((column) => [column, row[column] ?? ''])) as CsvRow,
  );
}

export async function closeCsvParser(): Promise<void> {
  await parser?.close();
  parser = null;
}

/** An export over a real socket read by a slow client (S10): it cannot take the body faster than its rate. */
export interface SlowExport {
  status: number;
  /** Bytes received so far. */
  received(): number;
  /** How the body ended: `complete` only when the chunked body's last chunk arrived (a clean end). */
  ended: Promise<{ complete: boolean; text: string; at: number }>;
  destroy(): void;
}

/** GET `url` with `token`, reading at most `bytesPerSecond`. */
export async function readExportSlowly(
  url: string,
  token: string,
  bytesPerSecond: number,
): Promise<SlowExport> {
  const request = http.get(url, { headers: { authorization: `Bearer ${token}` } });
  request.on('error', () => {}); // a cut connection is reported through `ended`
  const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
    request.once('response', resolve).once('error', reject);
  });
  const chunks: Buffer[] = [];
  let bytes = 0;
  let timer: NodeJS.Timeout | undefined;
  response.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    bytes += chunk.length;
    response.pause();
    timer = setTimeout(() => response.resume(), (chunk.length / bytesPerSecond) * 1000);
  });
  response.on('error', () => {});
  const ended = new Promise<{ complete: boolean; text: string; at: number }>((resolve) =>
    response.once('close', () => {
      clearTimeout(timer);
      resolve({ complete: response.complete, text: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
    }),
  );
  return {
    status: response.statusCode ?? 0,
    received: () => bytes,
    ended,
    destroy: () => request.destroy(),
  };
}

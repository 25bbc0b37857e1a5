// Write bursts against a real service process, with a ledger of every outcome, and the W5 audit
// of the database afterwards: every acknowledged write complete, no row that was not acknowledged
// or left in doubt, no partial row.
import { gqlOverHttp as gqlRequest } from './processes.js';

export const GENERIC_GRAPHQL_ERROR = { message: 'Unexpected error.', code: 'INTERNAL_SERVER_ERROR' };
export const GENERIC_REST_ERROR = { error: 'internal error', code: 'internal_error' };

export interface WriterFixture {
  agentId: string;
  runToken: string;
  operatorToken: string;
  instruments: [string, string];
}

interface SentWrite {
  content: string;
  instruments: string[];
  links: { targetMemoryId: string; linkType: string }[];
  startedAt: number;
}

export type Outcome = 'acknowledged' | 'internal_error' | 'in_doubt' | 'unexpected';

/** Row shape the audit reads straight from the database. */
export interface StoredRow {
  id: string;
  content: string;
  instruments: string[];
  links: { targetMemoryId: string; linkType: string }[];
}

/** `SELECT` of the agent's records with their targets and links, identical on PostgreSQL and PGlite. */
export const STORED_ROWS_SQL = `
SELECT m.id::text AS id, m.content,
  coalesce((SELECT array_agg(t."instrumentId" ORDER BY t.position) FROM "MemoryTarget" t WHERE t."memoryId" = m.id), '{}') AS instruments,
  coalesce((SELECT json_agg(json_build_object('targetMemoryId', l."targetMemoryId", 'linkType', l."linkType") ORDER BY l.position)
              FROM "MemoryLink" l WHERE l."memoryId" = m.id), '[]'::json) AS links
  FROM "Memory" m WHERE m."agentId" = $1`;

/** Targets or links whose record does not exist (foreign keys should make this impossible). */
export const ORPHANS_SQL = `
SELECT (SELECT count(*) FROM "MemoryTarget" t WHERE NOT EXISTS (SELECT 1 FROM "Memory" m WHERE m.id = t."memoryId"))
     + (SELECT count(*) FROM "MemoryLink" l WHERE NOT EXISTS (SELECT 1 FROM "Memory" m WHERE m.id = l."memoryId")) AS n`;

/** An agent selecting two instruments, an ANALYSIS run token to write with, an operator token to read with. */
export async function createWriterFixture(
  base: string,
  adminToken: string,
  name: string,
): Promise<WriterFixture> {
  const instruments: [string, string] = ['BTC', 'ETH'];
  for (const id of instruments) {
    await gqlRequest(
      base,
      adminToken,
      'mutation($i: UpsertInstrumentInput!) { upsertInstrument(input: $i) { id } }',
      {
        i: { id, active: true },
      },
    );
  }
  const { createAgent } = await gqlRequest<{ createAgent: { id: string } }>(
    base,
    adminToken,
    'mutation($n: String!) { createAgent(input: { name: $n }) { id } }',
    { n: name },
  );
  await gqlRequest(
    base,
    adminToken,
    'mutation($a: UUID!, $ids: [String!]!) { setAgentInstruments(agentId: $a, instrumentIds: $ids) { id } }',
    { a: createAgent.id, ids: instruments },
  );
  const { createProducer } = await gqlRequest<{ createProducer: { id: string } }>(
    base,
    adminToken,
    'mutation($i: CreateProducerInput!) { createProducer(input: $i) { id } }',
    { i: { agentId: createAgent.id, kind: 'ANALYSIS', name: 'burst', schedule: null } },
  );
  const { startRun } = await gqlRequest<{ startRun: { token: string } }>(
    base,
    adminToken,
    'mutation($i: StartRunInput!) { startRun(input: $i) { token } }',
    { i: { producerId: createProducer.id } },
  );
  const { createOperatorToken } = await gqlRequest<{ createOperatorToken: { token: string } }>(
    base,
    adminToken,
    'mutation($a: UUID!) { createOperatorToken(agentId: $a) { token } }',
    { a: createAgent.id },
  );
  return {
    agentId: createAgent.id,
    runToken: startRun.token,
    operatorToken: createOperatorToken.token,
    instruments,
  };
}

const CREATE = `mutation($input: CreateMemoryInput!) {
  createMemory(input: $input) { __typename ... on CreateMemorySuccess { memory { id } } ... on MemoryWriteError { code message } }
}`;

export class WriteLedger {
  /** Every write sent, by its unique content. */
  readonly sent = new Map<string, SentWrite>();
  /** Acknowledged as stored: id → content. */
  readonly acknowledged = new Map<string, string>();
  /** Contents of writes that ended with a transport error (reset, refused, timeout): stored or not. */
  readonly inDoubt = new Set<string>();
  /** Contents of writes answered with the generic internal error, and when they started. */
  readonly internalErrors = new Map<string, number>();
  /** Any other answer: always a failure. */
  readonly unexpected: string[] = [];
  private sequence = 0;

  constructor(
    private readonly fixture: WriterFixture,
    private readonly label: string,
  ) {}

  /** One write with two targets and links to the two latest acknowledged records, through GraphQL or REST. */
  async write(base: string, via: 'graphql' | 'rest'): Promise<Outcome> {
    const content = `${this.label} #${++this.sequence} via ${via}`;
    const links = [...this.acknowledged.keys()].slice(-2).map((targetMemoryId) => ({
      targetMemoryId,
      linkType: 'builds_on',
    }));
    const write: SentWrite = {
      content,
      instruments: [...this.fixture.instruments],
      links,
      startedAt: Date.now(),
    };
    this.sent.set(content, write);
    let status: number;
    let body: unknown;
    try {
      const response =
        via === 'graphql'
          ? await fetch(`${base}/graphql`, {
              method: 'POST',
              headers: {
                'content-type': 'application/json',
                authorization: `Bearer ${this.fixture.runToken}`,
              },
              body: JSON.stringify({
                query: CREATE,
                variables: {
                  input: {
                    type: 'note',
                    scope: 'INSTRUMENTS',
                    instruments: write.instruments,
                    content,
                    links,
                  },
                },
              }),
              signal: AbortSignal.timeout(10_000),
            })
          : await fetch(`${base}/api/v1/memories`, {
              method: 'POST',
              headers: {
                'content-type': 'application/json',
                authorization: `Bearer ${this.fixture.runToken}`,
              },
              body: JSON.stringify({
                type: 'note',
                scope: 'INSTRUMENTS',
                instruments: write.instruments,
                content,
                links: links.map((l) => ({ target_memory_id: l.targetMemoryId, link_type: l.linkType })),
              }),
              signal: AbortSignal.timeout(10_000),
            });
      status = response.status;
      body = await response.json();
    } catch {
      this.inDoubt.add(content);
      return 'in_doubt';
    }
    return this.classify(content, via, status, body);
  }

  private classify(content: string, via: 'graphql' | 'rest', status: number, body: unknown): Outcome {
    if (via === 'graphql') {
      const result = body as {
        data?: { createMemory?: { __typename: string; memory?: { id: string } } | null } | null;
        errors?: { message: string; extensions?: { code?: string } }[];
      };
      const id = result.data?.createMemory?.memory?.id;
      if (status === 200 && result.data?.createMemory?.__typename === 'CreateMemorySuccess' && id) {
        this.acknowledged.set(id, content);
        return 'acknowledged';
      }
      const errors = result.errors ?? [];
      if (
        errors.length === 1 &&
        errors[0]!.message === GENERIC_GRAPHQL_ERROR.message &&
        errors[0]!.extensions?.code === GENERIC_GRAPHQL_ERROR.code
      ) {
        this.internalErrors.set(content, this.sent.get(content)!.startedAt);
        return 'internal_error';
      }
    } else {
      const result = body as { memory?: { id: string } };
      if (status === 201 && result.memory?.id) {
        this.acknowledged.set(result.memory.id, content);
        return 'acknowledged';
      }
      if (status === 500 && JSON.stringify(body) === JSON.stringify(GENERIC_REST_ERROR)) {
        this.internalErrors.set(content, this.sent.get(content)!.startedAt);
        return 'internal_error';
      }
    }
    this.unexpected.push(`${content}: ${status} ${JSON.stringify(body).slice(0, 500)}`);
    return 'unexpected';
  }

  /**
   * W5 audit of the rows read from the database. Writes answered with the internal error count as
   * in doubt only when they started before `internalErrorInDoubtUntil` (in flight when the database
   * crashed: the commit may have reached the disk while the answer was lost).
   */
  audit(rows: StoredRow[], orphans: number, internalErrorInDoubtUntil = 0): string[] {
    const problems = this.unexpected.map((u) => `unexpected answer: ${u}`);
    if (orphans !== 0) problems.push(`${orphans} targets/links without their record`);
    const byId = new Map(rows.map((row) => [row.id, row]));
    for (const [id, content] of this.acknowledged) {
      if (!byId.has(id)) problems.push(`acknowledged write lost: ${id} (${content})`);
    }
    for (const row of rows) {
      const sent = this.sent.get(row.content);
      if (!sent) {
        problems.push(`row nobody wrote: ${row.id} (${row.content})`);
        continue;
      }
      const acknowledgedAs = this.acknowledged.get(row.id) === row.content;
      const startedAt = this.internalErrors.get(row.content);
      const inDoubt =
        this.inDoubt.has(row.content) || (startedAt !== undefined && startedAt < internalErrorInDoubtUntil);
      if (!acknowledgedAs && !inDoubt) {
        problems.push(
          `row stored although not acknowledged (${startedAt !== undefined ? 'answered internal error' : 'no success'}): ${row.id} (${row.content})`,
        );
      }
      if (JSON.stringify(row.instruments) !== JSON.stringify(sent.instruments))
        problems.push(`partial targets on ${row.id}: ${JSON.stringify(row.instruments)}`);
      if (JSON.stringify(row.links) !== JSON.stringify(sent.links))
        problems.push(`partial links on ${row.id}: ${JSON.stringify(row.links)}`);
    }
    return problems;
  }

  counts(): Record<string, number> {
    return {
      sent: this.sent.size,
      acknowledged: this.acknowledged.size,
      internalErrors: this.internalErrors.size,
      inDoubt: this.inDoubt.size,
      unexpected: this.unexpected.length,
    };
  }
}

/**
 * `concurrency` writers alternate GraphQL and REST against `base()` until `stop()` says so or
 * `maxWrites` were sent; a failed write is followed by a short pause so an outage is not a busy loop.
 */
export async function writeBurst(
  ledger: WriteLedger,
  options: { base: () => string; concurrency: number; maxWrites: number; stop: () => boolean },
): Promise<void> {
  let started = 0;
  const worker = async (index: number) => {
    while (!options.stop() && started < options.maxWrites) {
      started++;
      const outcome = await ledger.write(options.base(), (started + index) % 2 ? 'graphql' : 'rest');
      if (outcome !== 'acknowledged') await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, (_, index) => worker(index)));
}

/** Polls `check` every 100 ms until it is true; throws after `ms`. */
export async function waitUntil(what: string, check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A status code, or 0 when nothing answers. */
export async function statusOf(url: string): Promise<number> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(3000) });
    await response.body?.cancel();
    return response.status;
  } catch {
    return 0;
  }
}

// S4 logs are for operators: client mistakes at info/warn, faults at error, every line ≤ 2 KiB with a
// request id and the caller kind, never a token, content or metadata; no error echoes a huge input.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger, MAX_LOG_LINE_BYTES } from '../../src/logger.js';
import {
  ADMIN_TOKEN,
  CREATE_MEMORY,
  createAgentFixture,
  startHarness,
  startRun,
  writeOk,
  type Harness,
} from '../support/harness.js';

interface Line {
  level: number;
  msg: string;
  reqId?: string;
  caller?: string;
  [key: string]: unknown;
}

const lines: string[] = [];
let h: Harness;
/** While true, every direct SQL statement fails as a lost connection would. */
let failStatements = false;
let runToken: string;
let operatorToken: string;
const MiB = 1024 * 1024;

const parsed = (): Line[] => lines.map((line) => JSON.parse(line) as Line);

function post(path: string, body: unknown, token: string | null, headers: Record<string, string> = {}) {
  return h.fetch(path, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

function expectBounded(): void {
  for (const line of lines) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(MAX_LOG_LINE_BYTES);
}

beforeAll(async () => {
  h = await startHarness({
    logLines: lines,
    beforeStatement: () => {
      if (failStatements) throw new Error(`connection lost ${'q'.repeat(MiB)}`);
    },
  });
  const fx = await createAgentFixture(h);
  operatorToken = fx.operatorToken;
  runToken = (await startRun(h, fx.producers.adhoc!.id)).token;
});

beforeEach(() => {
  lines.length = 0;
});

afterAll(async () => {
  await h?.close();
});

describe('S4: request logs', () => {
  it('S4: a request without a token and a 9 MiB invalid variable writes a few short info lines, not megabytes at error', async () => {
    const huge = 'x'.repeat(9 * MiB);
    const response = await post(
      '/graphql',
      { query: CREATE_MEMORY, variables: { input: { type: 1, scope: 'AGENT', content: huge } } },
      null,
    );
    const text = await response.text();
    expect(text.length).toBeLessThan(2000);
    expect(lines.length).toBeGreaterThan(0);
    expectBounded();
    const total = lines.reduce((sum, line) => sum + line.length, 0);
    expect(total).toBeLessThan(10_000);
    for (const line of parsed()) expect(line.level).toBeLessThan(50);
    expect(lines.join('')).not.toContain('xxxxxxxxxx');
  });

  it('S4: one scalar error never echoes a 10 MB input back in the GraphQL response', async () => {
    const huge = 'y'.repeat(10 * MiB);
    for (const body of [
      { query: 'query($id: UUID!) { memory(id: $id) { id } }', variables: { id: huge } },
      { query: `{ memory(id: "${'z'.repeat(MiB)}") { id } }` },
    ]) {
      const response = await post('/graphql', body, ADMIN_TOKEN);
      const text = await response.text();
      expect(text.length).toBeLessThan(1000);
      const { errors } = JSON.parse(text) as { errors: { message: string }[] };
      expect(errors[0]!.message.length).toBeLessThanOrEqual(300);
      // W10 quotes at most 100 characters of the input.
      // A huge variable is quoted at most 100 characters (W10); a huge document is refused unparsed (S3).
      expect(errors[0]!.message).toMatch(/^UUID cannot represent "[yz]{100}"…|larger than 65536 bytes/);
    }
    expectBounded();
    for (const line of parsed()) expect(line.level).toBeLessThan(50);
  });

  it('S4: a 401 logs at info with the request id and caller kind none, and returns the id as x-request-id', async () => {
    const response = await post('/graphql', { query: '{ memoryTypes { type } }' }, null, {
      'x-request-id': 'ops-trace-42',
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('x-request-id')).toBe('ops-trace-42');
    const mine = parsed().filter((line) => line.reqId === 'ops-trace-42');
    expect(mine.length).toBeGreaterThan(0);
    for (const line of mine) {
      expect(line.caller).toBe('none');
      expect(line.level).toBeLessThan(50);
    }
    expect(mine.some((line) => line.status === 401 && line.level === 30)).toBe(true);
    expect(parsed().every((line) => line.reqId === 'ops-trace-42')).toBe(true);

    // A token that is refused is a client mistake too, and the refused token never reaches the log.
    const refused = await post(
      '/graphql',
      { query: '{ memoryTypes { type } }' },
      'op_not_a_real_token_123456',
    );
    expect(refused.status).toBe(401);
    expect(lines.join('')).not.toContain('op_not_a_real_token');
    for (const line of parsed()) expect(line.level).toBeLessThan(50);
  });

  it('S4: an unusable x-request-id is replaced by a generated one', async () => {
    for (const incoming of ['x'.repeat(300), 'two words', 'a"b']) {
      const response = await post('/graphql', { query: '{ __typename }' }, ADMIN_TOKEN, {
        'x-request-id': incoming,
      });
      const id = response.headers.get('x-request-id')!;
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(parsed().some((line) => line.reqId === id)).toBe(true);
    }
  });

  it('S4: lines carry the caller kind: admin, operator, run; 403 and typed write errors at info', async () => {
    const ids: Record<string, string> = {};
    for (const [kind, token] of [
      ['admin', ADMIN_TOKEN],
      ['operator', operatorToken],
      ['run', runToken],
    ] as const) {
      const response = await post('/graphql', { query: '{ __typename }' }, token);
      ids[kind] = response.headers.get('x-request-id')!;
    }
    for (const [kind, id] of Object.entries(ids)) {
      // Lines before the token is checked say `unverified`; from then on, the kind.
      const mine = parsed().filter((line) => line.reqId === id);
      expect(mine.length, kind).toBeGreaterThan(0);
      for (const line of mine) expect(['unverified', kind]).toContain(line.caller);
      expect(mine.at(-1)).toMatchObject({ msg: 'request finished', caller: kind });
    }

    lines.length = 0;
    // 403: an operator may not write; typed write errors: a reserved type, a missing link target.
    const forbidden = await post(
      '/api/v1/memories',
      { type: 'note', scope: 'AGENT', content: 'c' },
      operatorToken,
    );
    expect(forbidden.status).toBe(403);
    const invalid = await post(
      '/api/v1/memories',
      {
        type: 'note',
        scope: 'AGENT',
        content: 'c',
        links: [{ target_memory_id: '00000000-0000-4000-8000-000000000000', link_type: 'refers' }],
      },
      runToken,
    );
    expect(invalid.status).toBe(422);
    const typed = await post(
      '/graphql',
      {
        query: CREATE_MEMORY,
        variables: { input: { type: 'note', scope: 'INSTRUMENTS', content: 'c', instruments: ['NOPE'] } },
      },
      runToken,
    );
    expect(((await typed.json()) as any).data.createMemory.__typename).toBe('InvalidMemoryTarget');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of parsed()) expect(line.level).toBeLessThan(50);
    expect(
      parsed().some((line) => line.status === 403 && line.caller === 'operator' && line.level === 30),
    ).toBe(true);
    expect(parsed().some((line) => line.status === 422 && line.caller === 'run' && line.level === 30)).toBe(
      true,
    );
  });

  it('S4: no line carries a token, record content or metadata', async () => {
    const content = 'CONTENT-MARKER-6d1f secret trading note';
    const metadataMarker = 'METADATA-MARKER-93ab';
    await writeOk(h, runToken, { type: 'note', scope: 'AGENT', content, metadata: { why: metadataMarker } });
    await post(
      '/api/v1/memories',
      { type: 'note', scope: 'AGENT', content, metadata: { m: metadataMarker } },
      runToken,
    );
    // Invalid inputs that carry content: the error is logged without it.
    await post(
      '/graphql',
      {
        query: CREATE_MEMORY,
        variables: {
          input: { type: 'note', scope: 'AGENT', content, metadata: { m: metadataMarker }, links: 5 },
        },
      },
      runToken,
    );
    await post(
      '/graphql',
      { query: CREATE_MEMORY, variables: { input: { type: 7, scope: 'AGENT', content } } },
      null,
    );
    expect(lines.length).toBeGreaterThan(0);
    const all = lines.join('');
    for (const secret of [runToken, operatorToken, ADMIN_TOKEN, 'CONTENT-MARKER', metadataMarker]) {
      expect(all).not.toContain(secret);
    }
  });

  const faultOf = async (query: string, requestId: string) => {
    failStatements = true;
    try {
      const response = await post('/graphql', { query }, runToken, { 'x-request-id': requestId });
      expect(JSON.stringify(await response.json())).toContain('Unexpected error.');
    } finally {
      failStatements = false;
    }
    expectBounded();
    const faults = parsed().filter((line) => line.level === 50 && line.reqId === requestId);
    expect(faults).toHaveLength(1);
    expect(JSON.stringify(faults[0])).toContain('connection lost');
    expect(lines.join('')).not.toContain(runToken);
    return faults[0]!;
  };

  it('S4: a server fault logs at error with the request id, bounded and without the token', async () => {
    // A document that names no folded read has the token checked before parsing: that fails.
    const fault = await faultOf('{ agents { id } }', 'fault-1');
    expect(fault.caller).toBe('unverified'); // the database failed while checking the token
  });

  it('S4: a fault of a read that checks the token itself logs the token’s kind', async () => {
    // The run's identity is remembered: the type counts' one statement checks it and fails.
    expect((await faultOf('{ memoryTypes { type } }', 'fault-2')).caller).toBe('run');
  });
});

describe('S4: the logger itself', () => {
  it('S4: every line is at most 2 KiB, however large the message, fields or error', () => {
    const out: string[] = [];
    const logger = createLogger('info', { write: (line: string) => void out.push(line) });
    const big = 'b'.repeat(5 * MiB);
    logger.error({ err: new Error(big), field: big, nested: { deeper: { deepest: big } } }, big);
    logger.info(
      Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`field${i}`, 'f'.repeat(1000)])),
      'many',
    );
    logger.warn(`${big} %s %s`, big, big);
    logger.error(new Error(big));
    expect(out).toHaveLength(4);
    for (const line of out) {
      expect(Buffer.byteLength(line)).toBeLessThanOrEqual(MAX_LOG_LINE_BYTES);
      expect(line.endsWith('\n')).toBe(true);
      expect(() => JSON.parse(line)).not.toThrow();
    }
    expect(JSON.parse(out[0]!).level).toBe(50);
  });

  it('S4: authorization headers, tokens, content and metadata are redacted wherever a caller logs them', () => {
    const out: string[] = [];
    const logger = createLogger('info', { write: (line: string) => void out.push(line) });
    logger.info(
      {
        authorization: 'Bearer run_secret1',
        headers: { authorization: 'Bearer run_secret2' },
        request: { headers: { authorization: 'Bearer run_secret3' } },
        token: 'run_secret4',
        input: { content: 'content secret5', metadata: { a: 'secret6' } },
      },
      'request',
    );
    expect(out[0]).not.toMatch(/secret/);
  });
});

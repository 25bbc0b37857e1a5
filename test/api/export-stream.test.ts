// B12, streaming: one page read per page the client takes (backpressure), no reads after
// the client leaves, a consistent view while records are added (B4), and a database failure that
// fails the download instead of ending it like a complete file (logged at error without content, S4);
// S10: revoking the export's token or finishing its run cuts it within a second.
import { DEFAULT_MAX_EXPENSIVE_PER_TOKEN } from '../../src/service/read-budget.js';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EXPORT_PAGE_SIZE } from '../../src/service/export-memories.js';
import { getExport, importRecords, memoriesIds, ndjsonRecords, readExportSlowly } from '../support/export.js';
import {
  createAgentFixture,
  startHarness,
  startRun,
  type AgentFixture,
  type Harness,
} from '../support/harness.js';

let h: Harness;
let baseUrl: string;
let small: AgentFixture;
let large: AgentFixture;
const logLines: string[] = [];

const SMALL_RECORDS = 1000;
const LARGE_RECORDS = 1000;
/** 32 KB a record: the large export (32 MB) is far more than the socket buffers between client and server. */
const LARGE_CONTENT = 32 * 1024;

/** Page statements of the export per agent, and what a test makes each one do first (delay, fail). */
const pageReads = new Map<string, number>();
let beforePage: ((agentId: string, read: number) => Promise<void> | void) | null = null;

beforeAll(async () => {
  h = await startHarness({
    logLines,
    // Counts the export's page statements per agent and lets a test delay or fail one (by their
    // text: an export's pages are unnamed, planned with their values).
    beforeStatement: async ({ params, text }) => {
      const agentId = params[0];
      if (text.startsWith('WITH page AS') && typeof agentId === 'string') {
        const read = (pageReads.get(agentId) ?? 0) + 1;
        pageReads.set(agentId, read);
        await beforePage?.(agentId, read);
      }
    },
  });
  const address = await h.server.listen(0, '127.0.0.1');
  baseUrl = `http://127.0.0.1:${address.port}`;
  h.clock.set('2026-03-20T00:00:00.000Z');
  small = await createAgentFixture(h, { instruments: ['BTC', 'ETH'] });
  large = await createAgentFixture(h);
  const start = '2026-03-01T00:00:00.000Z';
  await importRecords(h, { agentId: small.agentId, count: SMALL_RECORDS, start, stepMs: 60_000 });
  const bulk = 'x'.repeat(LARGE_CONTENT - 16);
  await importRecords(h, {
    agentId: large.agentId,
    count: LARGE_RECORDS,
    start,
    stepMs: 60_000,
    content: (i) => `${String(i).padStart(8, '0')} ${bulk}`,
  });
}, 240_000);
afterAll(async () => {
  await h.close();
});

const readsOf = (agent: AgentFixture) => pageReads.get(agent.agentId) ?? 0;
/** The export end lines logged since `from` (outcome, records), for a failure's message. */
const exportEnds = (from: number) =>
  JSON.stringify(logsSince(from).filter((line) => String(line.msg).startsWith('export ')));
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const logsSince = (from: number) =>
  logLines.slice(from).map((line) => JSON.parse(line) as Record<string, any>);

/** Waits until the agent's page reads have not changed for `quietMs` (bounded). */
async function readsSettle(agent: AgentFixture, quietMs = 400): Promise<number> {
  let last = readsOf(agent);
  for (let round = 0; round < 40; round++) {
    await sleep(quietMs);
    if (readsOf(agent) === last) return last;
    last = readsOf(agent);
  }
  throw new Error('the export kept reading');
}

function resetReads(agent: AgentFixture) {
  pageReads.set(agent.agentId, 0);
}

describe('B12: streamed page by page', () => {
  it('B12, B4: records written while an export is read neither appear in it nor shift it', async () => {
    const expected = await memoriesIds(h, small.operatorToken, null);
    resetReads(small);
    const response = await getExport(h, 'format=ndjson', small.operatorToken);
    const reader = response.body!.getReader();
    const first = await reader.read();
    // One page answered the request and one more at most was read for the first chunk (nothing ahead).
    expect(readsOf(small)).toBeLessThanOrEqual(2);
    const run = await startRun(h, small.producers.adhoc!.id);
    for (let i = 0; i < 5; i++) {
      h.clock.advance(1000);
      await h.fetch('/api/v1/memories', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${run.token}` },
        body: JSON.stringify({
          type: 'ema_handoff',
          scope: 'AGENT',
          content: `written during the export ${i}`,
        }),
      });
    }
    const chunks = [first.value!];
    for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
    const records = ndjsonRecords(Buffer.concat(chunks).toString('utf8'));
    expect(records.map((record) => record.id)).toEqual(expected);
    expect(readsOf(small)).toBe(SMALL_RECORDS / EXPORT_PAGE_SIZE);
  });

  it('B12: a client that stops reading holds the export — the database is not read ahead of it (backpressure)', async () => {
    resetReads(large);
    const pages = LARGE_RECORDS / EXPORT_PAGE_SIZE;
    const { response, received } = await openOverSocket('format=ndjson', large);
    response.pause();
    const whilePaused = await readsSettle(large);
    expect(whilePaused).toBeLessThan(pages / 2);
    const body = await received(() => response.resume());
    expect(body.split('\n').filter(Boolean)).toHaveLength(LARGE_RECORDS);
    expect(readsOf(large)).toBe(pages);
  }, 60_000);
});

describe('B12: the client leaves', () => {
  it('B12: a client that disconnects stops the database reads (over a socket)', async () => {
    resetReads(small);
    beforePage = (agentId) => (agentId === small.agentId ? sleep(100) : undefined);
    const from = logLines.length;
    try {
      const abort = new AbortController();
      const response = await fetch(`${baseUrl}/api/v1/export?format=csv`, {
        headers: { authorization: `Bearer ${small.operatorToken}` },
        signal: abort.signal,
      });
      const reader = response.body!.getReader();
      await reader.read();
      abort.abort();
      const atAbort = readsOf(small);
      expect(await readsSettle(small)).toBeLessThanOrEqual(atAbort + 1);
      expect(readsOf(small)).toBeLessThan(SMALL_RECORDS / EXPORT_PAGE_SIZE);
      expect(logsSince(from).some((line) => line.msg === 'export cancelled by the client')).toBe(true);
    } finally {
      beforePage = null;
    }
  });

  it('B12: a reader that cancels the body (in-process) stops the database reads', async () => {
    resetReads(small);
    const response = await getExport(h, 'format=ndjson', small.operatorToken);
    const reader = response.body!.getReader();
    await reader.read();
    await reader.cancel();
    const atCancel = readsOf(small);
    expect(await readsSettle(small, 200)).toBe(atCancel);
    expect(atCancel).toBeLessThanOrEqual(2);
  });

  it("B12: a request aborted while its body waits unread ends the export (the request's signal)", async () => {
    resetReads(small);
    const from = logLines.length;
    const abort = new AbortController();
    const response = await h.fetch('/api/v1/export?format=ndjson', {
      headers: { authorization: `Bearer ${small.operatorToken}` },
      signal: abort.signal,
    });
    expect(response.status).toBe(200);
    abort.abort();
    await sleep(50);
    expect(logsSince(from).map((line) => line.msg)).toContain('export cancelled by the client');
    expect(readsOf(small)).toBe(1);
  });
});

describe('S8: exports per token are bounded', () => {
  it(`S8: a token runs at most ${DEFAULT_MAX_EXPENSIVE_PER_TOKEN} exports at once; another is 429 rate_limited until one ends; other tokens are not affected`, async () => {
    const from = logLines.length;
    const open = await Promise.all(
      Array.from({ length: DEFAULT_MAX_EXPENSIVE_PER_TOKEN }, () => openOverSocket('format=ndjson', large)),
    );
    for (const { response } of open) response.pause();
    const refused = await getExport(h, 'format=csv', large.operatorToken);
    // A slot freed meanwhile is one of these lines (a paused export holds two pages: it cannot finish).
    expect(refused.status, `exports ended meanwhile: ${exportEnds(from)}`).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toMatchObject({ code: 'rate_limited' });
    // Another token of another agent exports meanwhile.
    const other = await getExport(h, 'format=csv', small.operatorToken);
    expect(other.status).toBe(200);
    await other.text();

    // One export ends (read to its end): its slot is free again.
    const first = open[0]!;
    await first.received(() => first.response.resume());
    const again = await getExport(h, 'format=csv', large.operatorToken);
    expect(again.status).toBe(200);
    await again.body!.cancel();
    // A client that goes away gives its slot back too.
    for (const { response } of open.slice(1)) response.destroy();
    await expect
      .poll(async () => {
        const next = await getExport(h, 'format=csv', large.operatorToken);
        await next.body?.cancel();
        return next.status;
      })
      .toBe(200);
  }, 60_000);
});

describe('B12: the database fails', () => {
  const failOnRead = (failing: number) => {
    beforePage = (agentId, read) => {
      if (agentId === small.agentId && read === failing)
        throw new Error('connection terminated unexpectedly');
    };
  };

  it('B12: mid-stream, the connection is cut — the download fails, never a short file that looks complete; logged at error without content (S4)', async () => {
    resetReads(small);
    failOnRead(3);
    const consoleError = vi.spyOn(console, 'error');
    const from = logLines.length;
    try {
      const response = await fetch(`${baseUrl}/api/v1/export?format=csv`, {
        headers: { authorization: `Bearer ${small.operatorToken}` },
      });
      expect(response.status).toBe(200);
      await expect(response.text()).rejects.toThrow();
      const failure = logsSince(from).find((line) => line.level === 50);
      expect(failure).toMatchObject({
        msg: expect.stringContaining('export cut after 200 records'),
        caller: 'operator',
      });
      expect(failure!.reqId).toBeTruthy();
      const logged = logLines.slice(from).join('\n');
      expect(logged).not.toContain('record 1');
      expect(logged).not.toContain('HYPERLINK');
      expect(consoleError).not.toHaveBeenCalled();
    } finally {
      beforePage = null;
      consoleError.mockRestore();
    }
  });

  it('B12: mid-stream in-process, the body errors instead of ending', async () => {
    resetReads(small);
    failOnRead(2);
    try {
      const response = await getExport(h, 'format=ndjson', small.operatorToken);
      expect(response.status).toBe(200);
      await expect(response.text()).rejects.toThrow();
    } finally {
      beforePage = null;
    }
  });

  it('B12, W5: before the first byte ⇒ 500 with the generic body', async () => {
    resetReads(small);
    failOnRead(1);
    try {
      const response = await getExport(h, 'format=csv', small.operatorToken);
      expect(response.status).toBe(500);
      expect(await response.json()).toEqual({ error: 'internal error', code: 'internal_error' });
    } finally {
      beforePage = null;
    }
  });

  it('B12: exports are counted by format and outcome (/metrics)', async () => {
    const metrics = await (await h.fetch('/metrics')).text();
    for (const outcome of ['complete', 'cancelled', 'failed', 'internal_error']) {
      expect(metrics).toMatch(
        new RegExp(`memory_exports_total\\{format="(csv|ndjson)",outcome="${outcome}"\\} [1-9]`),
      );
    }
    expect(metrics).toMatch(/memory_exported_records_total\{format="ndjson"\} [1-9]/);
  });
});

describe('S10: an export ends with its token', () => {
  /** A slow client: the 32 MB export takes it about 8 s, far more than the 1 s the rule allows. */
  const SLOW_READER_BYTES_PER_SECOND = 4 * 1024 * 1024;

  async function operatorTokenOf(agent: AgentFixture): Promise<{ id: string; token: string }> {
    const { createOperatorToken } = await h.ok<{
      createOperatorToken: { token: string; operatorToken: { id: string } };
    }>('mutation($a: UUID!) { createOperatorToken(agentId: $a) { token operatorToken { id } } }', {
      a: agent.agentId,
    });
    return { id: createOperatorToken.operatorToken.id, token: createOperatorToken.token };
  }

  /** memory_exports_total{outcome="revoked"} for ndjson. */
  async function revokedExports(): Promise<number> {
    const text = await (await h.fetch('/metrics')).text();
    return Number(/^memory_exports_total\{format="ndjson",outcome="revoked"\} (\d+)$/m.exec(text)?.[1] ?? 0);
  }

  /** Milliseconds from `since` until the server counted one more revoked export; fails after 1 s. */
  async function revokedWithinOneSecond(before: number, since: number): Promise<number> {
    for (let round = 0; round < 100 && Date.now() - since < 1000; round++) {
      if ((await revokedExports()) > before) return Date.now() - since;
      await sleep(10);
    }
    throw new Error('the export was not ended within 1 s of the revocation');
  }

  /**
   * Opens the large export for `token` with a slow reader and waits until 1 MB arrived. Its third
   * page statement is held until `destroy` (at most 20 s): the kernel's loopback buffers (tcp_rmem
   * grows to 32 MB here) could otherwise take the whole export, so that the server finished it
   * before the revocation and the test proved nothing. The revocation meets a page being read;
   * `unhold` lets that statement return, after which no other may follow.
   */
  async function slowExport(token: string) {
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 20_000);
      release = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    resetReads(large);
    beforePage = (agentId, read) => (agentId === large.agentId && read >= 3 ? held : undefined);
    const opened = await readExportSlowly(
      `${baseUrl}/api/v1/export?format=ndjson`,
      token,
      SLOW_READER_BYTES_PER_SECOND,
    );
    const unhold = () => {
      beforePage = null;
      release();
    };
    const slow = {
      ...opened,
      unhold,
      destroy: () => {
        unhold();
        opened.destroy();
      },
    };
    expect(slow.status).toBe(200);
    for (let round = 0; round < 200 && slow.received() < 1024 * 1024; round++) await sleep(10);
    expect(slow.received()).toBeGreaterThanOrEqual(1024 * 1024);
    return slow;
  }

  /** The download was cut: not a clean end, fewer records than the agent has, no page read after the end. */
  async function expectCut(slow: Awaited<ReturnType<typeof slowExport>>, readsAtEnd: number) {
    slow.unhold();
    const ended = await Promise.race([slow.ended, sleep(20_000).then(() => null)]);
    expect(ended, 'the body never ended').not.toBeNull();
    expect(ended!.complete).toBe(false);
    expect(ended!.text.split('\n').length - 1).toBeLessThan(LARGE_RECORDS);
    expect(await readsSettle(large)).toBe(readsAtEnd); // the held statement was the last
  }

  it('S10: revokeOperatorToken cuts an export being read within 1 s — no page is read after it, the download never ends cleanly', async () => {
    const operator = await operatorTokenOf(large);
    const slow = await slowExport(operator.token);
    try {
      const before = await revokedExports();
      const from = logLines.length;
      const revokedAt = Date.now();
      await h.ok('mutation($id: UUID!) { revokeOperatorToken(id: $id) { id } }', { id: operator.id });
      await revokedWithinOneSecond(before, revokedAt);
      await expectCut(slow, readsOf(large));
      const line = logsSince(from).find((entry) => entry.msg === 'export ended: its token was revoked');
      expect(line).toMatchObject({ level: 30, format: 'ndjson', caller: 'operator' });
    } finally {
      slow.destroy();
    }
  }, 60_000);

  it('S10: a revocation made by another instance (the database alone) cuts the export within 1 s', async () => {
    const operator = await operatorTokenOf(large);
    const slow = await slowExport(operator.token);
    try {
      const before = await revokedExports();
      const revokedAt = Date.now();
      await h.db.sql.query(`UPDATE "OperatorToken" SET "revokedAt" = now() WHERE id = $1`, [operator.id]);
      await revokedWithinOneSecond(before, revokedAt);
      await expectCut(slow, readsOf(large));
    } finally {
      slow.destroy();
    }
  }, 60_000);

  it("S10: finishRun cuts the run token's export within 1 s", async () => {
    const run = await startRun(h, large.producers.adhoc!.id);
    const slow = await slowExport(run.token);
    try {
      const before = await revokedExports();
      const finishedAt = Date.now();
      await h.ok('mutation($r: UUID!) { finishRun(runId: $r, status: SUCCEEDED) { id } }', { r: run.runId });
      await revokedWithinOneSecond(before, finishedAt);
      await expectCut(slow, readsOf(large));
    } finally {
      slow.destroy();
    }
  }, 60_000);

  it('S10: in-process (no socket), the body of a revoked export errors instead of ending', async () => {
    const operator = await operatorTokenOf(small);
    const response = await getExport(h, 'format=ndjson', operator.token);
    const reader = response.body!.getReader();
    await reader.read();
    await h.ok('mutation($id: UUID!) { revokeOperatorToken(id: $id) { id } }', { id: operator.id });
    const drained = (async () => {
      for (let round = 0; round < 100; round++) if ((await reader.read()).done) return 'ended';
      return 'still streaming';
    })();
    await expect(drained).rejects.toThrow();
  });

  it('S10: a token revoked while the first page is read is answered as a revoked token is on a new request', async () => {
    const operator = await operatorTokenOf(small);
    beforePage = async (agentId, read) => {
      if (agentId !== small.agentId || read !== 1) return;
      beforePage = null;
      await h.ok('mutation($id: UUID!) { revokeOperatorToken(id: $id) { id } }', { id: operator.id });
    };
    resetReads(small);
    try {
      const during = await getExport(h, 'format=ndjson', operator.token);
      const after = await getExport(h, 'format=ndjson', operator.token);
      expect(during.status).toBe(401);
      expect(await during.json()).toEqual(await after.json());
    } finally {
      beforePage = null;
    }
  });
});

/** GET over a real socket with Node's client (it can pause); `received` collects the rest of the body. */
async function openOverSocket(query: string, agent: AgentFixture) {
  const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
    http
      .get(`${baseUrl}/api/v1/export?${query}`, {
        headers: { authorization: `Bearer ${agent.operatorToken}` },
      })
      .on('response', resolve)
      .on('error', reject);
  });
  expect(response.statusCode).toBe(200);
  const received = (start: () => void) =>
    new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      response.on('error', reject);
      start();
    });
  return { response, received };
}

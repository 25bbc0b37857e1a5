// B12: GET /api/v1/export — the caller's filtered view as NDJSON or CSV, newest first,
// equal to the `memories` pages; S1 access like `memories`; 400 naming the parameter; S2 headers.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AWKWARD_CONTENTS,
  closeCsvParser,
  CSV_HEADER,
  getExport,
  importRecords,
  memoriesIds,
  ndjsonRecords,
  parseCsv,
} from '../support/export.js';
import {
  ADMIN_TOKEN,
  createAgentFixture,
  startHarness,
  startRun,
  type AgentFixture,
  type Harness,
} from '../support/harness.js';

let h: Harness;
let fx: AgentFixture;
let other: AgentFixture;
let runs: { analysis: { runId: string; token: string }; trading: string; review: string };

const RECORDS = 1000;
/** Record i of the agent is created at START + floor(i / 2) × 34 min: 2026-03-01 … 2026-03-12. */
const START = '2026-03-01T00:00:00.000Z';
const NOW = '2026-03-20T00:00:00.000Z';

beforeAll(async () => {
  h = await startHarness();
  h.clock.set(NOW);
  fx = await createAgentFixture(h, { instruments: ['BTC', 'ETH'] });
  other = await createAgentFixture(h, { instruments: ['ETH'] });
  const analysis = await startRun(h, fx.producers.adhoc!.id);
  runs = {
    analysis,
    trading: (await startRun(h, fx.producers.trading!.id)).token,
    review: (await startRun(h, fx.producers.review!.id)).token,
  };
  await importRecords(h, {
    agentId: fx.agentId,
    count: RECORDS,
    start: START,
    stepMs: 34 * 60_000,
    sourceRunId: analysis.runId,
  });
  await importRecords(h, { agentId: other.agentId, count: 3, start: START, stepMs: 60_000 });
}, 120_000);
afterAll(async () => {
  await closeCsvParser();
  await h.close();
});

// S13: the cells the export neutralises, as a parser reads them back.
const guarded = (cell: string) => (/^[=+\-@\t\r]|[,;\t][=+\-@\t\r]/.test(cell) ? `'${cell}` : cell);

describe('B12: the export equals the memories pages', () => {
  it('B12: NDJSON of 1,000 records is the memories pages concatenated (same order, same ids), one REST record view a line', async () => {
    const expected = await memoriesIds(h, fx.operatorToken, null);
    expect(expected).toHaveLength(RECORDS);
    const response = await getExport(h, 'format=ndjson', fx.operatorToken);
    expect(response.status).toBe(200);
    const records = ndjsonRecords(await response.text());
    expect(records.map((record) => record.id)).toEqual(expected);
    expect(Object.keys(records[0]!)).toEqual([
      'id',
      'agent_id',
      'type',
      'scope',
      'instruments',
      'content',
      'metadata',
      'timeframe',
      'created_at',
      'expires_at',
      'expiry_policy',
      'freshness',
      'provenance',
      'links',
    ]);
    expect(records.filter((record) => record.provenance?.run_id === runs.analysis.runId)).toHaveLength(
      RECORDS / 5,
    );
    expect(records.some((record) => record.links.length > 0)).toBe(true);
    const contents = new Set(records.map((record) => record.content));
    for (const content of AWKWARD_CONTENTS) expect(contents.has(content), JSON.stringify(content)).toBe(true);
  });

  it('B12: a record written through POST /api/v1/memories exports as exactly its REST view', async () => {
    h.clock.set('2026-03-20T00:00:01.000Z');
    const response = await h.fetch('/api/v1/memories', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${runs.analysis.token}` },
      body: JSON.stringify({
        type: 'rest_note',
        scope: 'INSTRUMENTS',
        instruments: ['BTC', 'ETH'],
        content: 'written over REST, "exported" as is',
        metadata: { x: [1, { y: 'z' }] },
        links: [
          { target_memory_id: (await memoriesIds(h, fx.operatorToken, null))[0], link_type: 'evidence' },
        ],
      }),
    });
    const { memory } = (await response.json()) as { memory: Record<string, unknown> };
    const [exported] = ndjsonRecords(
      await (await getExport(h, 'format=ndjson&types=rest_note', fx.operatorToken)).text(),
    );
    expect(exported).toEqual(memory);
    h.clock.set(NOW);
  });

  it('B12: CSV has the header row and the same records in the same order; a real CSV parser (PostgreSQL COPY) reads every field back', async () => {
    const ndjson = ndjsonRecords(await (await getExport(h, 'format=ndjson', fx.operatorToken)).text());
    const response = await getExport(h, 'format=csv', fx.operatorToken);
    const text = await response.text();
    expect(text.slice(0, text.indexOf('\r\n'))).toBe(CSV_HEADER.join(','));
    const rows = await parseCsv(text);
    expect(rows.map((row) => row.id)).toEqual(ndjson.map((record) => record.id));
    for (const [index, row] of rows.entries()) {
      const view = ndjson[index]!;
      expect(row).toEqual({
        id: view.id,
        created_at: view.created_at,
        type: view.type,
        scope: view.scope,
        instruments: view.instruments.join(';'),
        producer: view.provenance?.producer_name ?? '',
        run_id: view.provenance?.run_id ?? '',
        run_kind: view.provenance?.kind ?? '',
        run_status: view.provenance?.run_status ?? '',
        expires_at: view.expires_at ?? '',
        freshness: view.freshness,
        timeframe: view.timeframe ?? '',
        content: guarded(view.content),
        metadata: view.metadata === null ? '' : row.metadata,
        links: view.links
          .map(
            (link: { link_type: string; target_memory_id: string }) =>
              `${link.link_type}:${link.target_memory_id}`,
          )
          .join(';'),
      });
      expect(row.metadata === '' ? null : JSON.parse(row.metadata)).toEqual(view.metadata);
    }
  });

  it('S13: CSV formula injection — cells starting with = + - @ tab or CR get a leading quote, nothing else changes', async () => {
    const rows = await parseCsv(await (await getExport(h, 'format=csv', fx.operatorToken)).text());
    const cells = new Set(rows.map((row) => row.content));
    expect(cells).toContain(`'=HYPERLINK("http://evil.example","click")`);
    for (const risky of ['+1 buy', '-2 sell', '@SUM(A1)', '\ttabbed', '\rcarriage return first']) {
      expect(cells).toContain(`'${risky}`);
      expect(cells).not.toContain(risky);
    }
    for (const plain of [
      'comma, "quoted" and\nnewline',
      'unicode: 日本語 — émigré — 🚀 — e\u0301',
      '"',
      '  padded  ',
    ]) {
      expect(cells).toContain(plain);
    }
  });

  it('S13: a formula start after , ; or tab inside a cell is neutralised too: quoted, with a leading quote', async () => {
    const agent = await createAgentFixture(h, { instruments: ['BTC'] });
    const risky = ['ok;=1+1', 'price,-2 sell', 'a\t@SUM(A1)', '-2;=3'];
    const contents = [...risky, 'safe; text', 'a=b;c'];
    await importRecords(h, {
      agentId: agent.agentId,
      count: contents.length,
      start: START,
      stepMs: 60_000,
      content: (i) => contents[i]!,
    });
    const text = await (await getExport(h, 'format=csv', agent.operatorToken)).text();
    for (const content of risky) expect(text, JSON.stringify(content)).toContain(`,"'${content}",`);
    expect(text).toContain(',safe; text,');
    expect(text).toContain(',a=b;c,');
    const cells = (await parseCsv(text)).map((row) => row.content).sort();
    expect(cells).toEqual([...risky.map((content) => `'${content}`), 'safe; text', 'a=b;c'].sort());
  });

  it('B12: an empty view is an empty NDJSON body and a CSV of the header row only', async () => {
    const filter = 'types=no_such_type';
    expect(await (await getExport(h, `format=ndjson&${filter}`, fx.operatorToken)).text()).toBe('');
    expect(await (await getExport(h, `format=csv&${filter}`, fx.operatorToken)).text()).toBe(
      `${CSV_HEADER.join(',')}\r\n`,
    );
  });
});

describe('B12, B4: one consistent view', () => {
  it('B4: a record committed during the export, even one older than the pages still to come (an import), is not in it', async () => {
    const agent = await createAgentFixture(h, { instruments: ['BTC'] });
    await importRecords(h, { agentId: agent.agentId, count: 250, start: START, stepMs: 60_000 });
    const expected = await memoriesIds(h, agent.operatorToken, null);
    const response = await getExport(h, 'format=ndjson', agent.operatorToken);
    const reader = response.body!.getReader();
    const chunks = [(await reader.read()).value!];
    // Legacy history arrives while the export is read: older than every record still to be sent.
    const { importMemories } = await h.ok<{ importMemories: { id: string }[] }>(
      'mutation($input: [ImportMemoryInput!]!) { importMemories(input: $input) { id } }',
      {
        input: [
          {
            agentId: agent.agentId,
            type: 'ema_handoff',
            scope: 'AGENT',
            content: 'legacy',
            createdAt: '2026-01-01T00:00:00Z',
          },
        ],
      },
    );
    for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
    const ids = ndjsonRecords(Buffer.concat(chunks).toString('utf8')).map((record) => record.id);
    expect(ids).not.toContain(importMemories[0]!.id);
    expect(ids).toEqual(expected);
  });
});

describe('B12: filters are the memories filter (B2, B3)', () => {
  const exportedIds = async (query: string, token = fx.operatorToken) =>
    ndjsonRecords(await (await getExport(h, `format=ndjson&${query}`, token)).text()).map((r) => r.id);

  it('B12: types (comma-separated) select what memories selects', async () => {
    const expected = await memoriesIds(h, fx.operatorToken, { types: ['ema_handoff', 'regime_shift'] });
    expect(expected.length).toBe(RECORDS / 2);
    expect(await exportedIds('types=ema_handoff,regime_shift')).toEqual(expected);
    const rows = await parseCsv(
      await (await getExport(h, 'format=csv&types=regime_shift,%20ema_handoff', fx.operatorToken)).text(),
    );
    expect(rows.map((row) => row.id)).toEqual(expected);
  });

  it('B12: rolling=LAST_24H is the last 24 hours at the request instant', async () => {
    h.clock.set('2026-03-06T12:00:00.000Z');
    try {
      const expected = await memoriesIds(h, fx.operatorToken, { window: { rolling: 'LAST_24H' } });
      expect(expected.length).toBeGreaterThan(0);
      expect(expected.length).toBeLessThan(RECORDS / 10);
      expect(await exportedIds('rolling=LAST_24H')).toEqual(expected);
    } finally {
      h.clock.set(NOW);
    }
  });

  it('B12: from_date/to_date are local dates in time_zone (America/New_York 2026-03-08 is 23 hours), with types', async () => {
    const window = { fromDate: '2026-03-08', toDate: '2026-03-08', timeZone: 'America/New_York' };
    const expected = await memoriesIds(h, fx.operatorToken, { types: ['position_note'], window });
    const query = 'types=position_note&from_date=2026-03-08&to_date=2026-03-08&time_zone=America%2FNew_York';
    const records = ndjsonRecords(
      await (await getExport(h, `format=ndjson&${query}`, fx.operatorToken)).text(),
    );
    expect(records.map((record) => record.id)).toEqual(expected);
    expect(records.length).toBeGreaterThan(0);
    for (const record of records) {
      expect(
        record.created_at >= '2026-03-08T05:00:00.000Z' && record.created_at < '2026-03-09T04:00:00.000Z',
      ).toBe(true);
    }
    // from_date alone is one day; a lone time_zone (the page always sends one) restricts nothing.
    expect(
      await exportedIds('from_date=2026-03-08&time_zone=America%2FNew_York&types=position_note'),
    ).toEqual(expected);
    expect(await exportedIds('time_zone=Europe%2FLondon')).toEqual(
      await memoriesIds(h, fx.operatorToken, null),
    );
  });
});

/** The rest of MemoryFilter: the export passes each field through, so it selects what `memories` selects. */
const MORE_FILTERS: [field: string, query: () => string, filter: () => Record<string, unknown>][] = [
  ['instruments', () => 'instruments=BTC', () => ({ instruments: ['BTC'] })],
  ['text', () => 'text=comma', () => ({ text: 'comma' })],
  ['freshness', () => 'freshness=STALE', () => ({ freshness: 'STALE' })],
  ['runKinds', () => 'run_kinds=ANALYSIS', () => ({ runKinds: ['ANALYSIS'] })],
  [
    'producerIds',
    () => `producer_ids=${fx.producers.adhoc!.id}`,
    () => ({ producerIds: [fx.producers.adhoc!.id] }),
  ],
];

describe('B12: every MemoryFilter field is passed through', () => {
  for (const [field, query, filter] of MORE_FILTERS) {
    it(`B12: ${field} selects what memories selects`, async () => {
      const expected = await memoriesIds(h, fx.operatorToken, filter());
      const all = await memoriesIds(h, fx.operatorToken, null);
      // The data makes every filter narrow the view (an ignored parameter would export everything).
      expect(expected.length).toBeLessThan(all.length);
      const response = await getExport(h, `format=ndjson&${query()}`, fx.operatorToken);
      expect(ndjsonRecords(await response.text()).map((record) => record.id)).toEqual(expected);
    });
  }
});

describe('S1: who may export', () => {
  const status = async (query: string, token: string | null) => {
    const response = await getExport(h, query, token);
    return { status: response.status, body: await response.text() };
  };

  it('S1: no token, an unknown one or a finished run ⇒ 401 unauthenticated, as the REST write answers', async () => {
    const finished = await startRun(h, fx.producers.adhoc!.id);
    await h.ok('mutation($r: UUID!) { finishRun(runId: $r, status: SUCCEEDED) { id } }', {
      r: finished.runId,
    });
    for (const token of [null, 'op_not-a-token', finished.token]) {
      const answer = await status('format=csv', token);
      expect(answer.status).toBe(401);
      expect(JSON.parse(answer.body)).toMatchObject({ code: 'unauthenticated' });
    }
  });

  it('S1: a Trading run ⇒ 403 (it may not browse); Analysis and Review runs export their agent', async () => {
    const refused = await status('format=ndjson', runs.trading);
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body)).toMatchObject({ code: 'forbidden' });
    for (const token of [runs.analysis.token, runs.review]) {
      const answer = await status('format=ndjson&types=review_note', token);
      expect(answer.status).toBe(200);
      expect(ndjsonRecords(answer.body).every((record) => record.agent_id === fx.agentId)).toBe(true);
    }
  });

  it("S1: another agent's agent_id answers exactly like one that does not exist (403), and leaks nothing", async () => {
    const foreign = await status(`format=ndjson&agent_id=${other.agentId}`, fx.operatorToken);
    const absent = await status(`format=ndjson&agent_id=${randomUUID()}`, fx.operatorToken);
    expect(foreign.status).toBe(403);
    expect(foreign).toEqual(absent);
    expect(foreign.body).not.toContain(other.agentId);
    // Its own agent_id is fine (any case).
    expect(
      (await status(`format=ndjson&agent_id=${fx.agentId.toUpperCase()}&types=review_note`, fx.operatorToken))
        .status,
    ).toBe(200);
  });

  it('S1: the admin token names the agent (agent_id); without it 400, an unknown agent is an empty export', async () => {
    const missing = await status('format=ndjson', ADMIN_TOKEN);
    expect(missing.status).toBe(400);
    expect(JSON.parse(missing.body)).toMatchObject({ code: 'validation_error', field: 'agent_id' });
    const records = ndjsonRecords(
      (await status(`format=ndjson&agent_id=${other.agentId}`, ADMIN_TOKEN)).body,
    );
    expect(records.map((record) => record.id)).toEqual(
      await memoriesIds(h, ADMIN_TOKEN, null, other.agentId),
    );
    expect(records).toHaveLength(3);
    expect(await status(`format=ndjson&agent_id=${randomUUID()}`, ADMIN_TOKEN)).toEqual({
      status: 200,
      body: '',
    });
  });
});

describe('B12: bad parameters ⇒ 400 naming the parameter, before any record', () => {
  const cases: [query: string, field: string][] = [
    ['', 'format'],
    ['format=xml', 'format'],
    ['format=NDJSON', 'format'],
    ['format=csv&typo=1', 'typo'],
    ['format=csv&agentId=x', 'agentId'],
    ['format=csv&types=a&types=b', 'types'],
    ['format=csv&types=Not-A-Type', 'types'],
    ['format=csv&rolling=LAST_2H', 'rolling'],
    ['format=csv&rolling=LAST_1H&from_date=2026-03-01', 'rolling'],
    ['format=csv&from_date=2026-02-30', 'from_date'],
    ['format=csv&to_date=2026-03-01', 'from_date'],
    ['format=csv&from_date=2026-03-02&to_date=2026-03-01', 'to_date'],
    ['format=csv&from_date=2025-01-01&to_date=2026-03-01', 'to_date'],
    ['format=csv&from_date=2026-03-01&time_zone=Mars%2FBase', 'time_zone'],
    ['format=csv&time_zone=Mars%2FBase', 'time_zone'],
    ['format=csv&agent_id=not-a-uuid', 'agent_id'],
    ['format=csv&freshness=OLD', 'freshness'],
    ['format=csv&run_kinds=ANALYSIS,BOGUS', 'run_kinds'],
    ['format=csv&producer_ids=nope', 'producer_ids'],
    [`format=csv&text=${'x'.repeat(201)}`, 'text'],
    ['format=csv&types=a%00b', 'types'],
  ];
  for (const [query, field] of cases) {
    it(`B12: ?${query.slice(0, 60)} ⇒ 400 field ${field}`, async () => {
      const response = await getExport(h, query, fx.operatorToken);
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      const body = (await response.json()) as Record<string, unknown>;
      expect(body).toMatchObject({ code: 'validation_error', field });
      expect(typeof body.error).toBe('string');
      expect(body.error).not.toMatch(/fromDate|toDate|timeZone|runKinds|producerIds/);
    });
  }

  it('B11: text= of more than 16 words ⇒ 400 validation_error naming text, before any record', async () => {
    const words = Array.from({ length: 17 }, (_, i) => `risk${i}`).join(' ');
    const response = await getExport(h, `format=ndjson&text=${encodeURIComponent(words)}`, fx.operatorToken);
    expect(response.status).toBe(400);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ code: 'validation_error', field: 'text' });
    expect(body.error).toMatch(/at most 16 words/);
    const sixteen = words.split(' ').slice(0, 16).join(' ');
    expect(
      (await getExport(h, `format=ndjson&text=${encodeURIComponent(sixteen)}`, fx.operatorToken)).status,
    ).toBe(200);
  });

  it('B12: other methods ⇒ 405', async () => {
    const response = await h.fetch('/api/v1/export?format=csv', {
      method: 'POST',
      headers: { authorization: `Bearer ${fx.operatorToken}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(405);
  });
});

describe('S2: the export response', () => {
  it('S2: an attachment named after agent and date, no-store, nosniff, no framing, no referrer, a CSP that loads nothing', async () => {
    for (const [format, type] of [
      ['csv', 'text/csv; charset=utf-8'],
      ['ndjson', 'application/x-ndjson'],
    ] as const) {
      const response = await getExport(h, `format=${format}&types=review_note`, fx.operatorToken);
      await response.arrayBuffer();
      const headers = Object.fromEntries(response.headers);
      expect(headers).toMatchObject({
        'content-type': type,
        'content-disposition': `attachment; filename="memories-${fx.agentId}-2026-03-20.${format}"`,
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
        'x-frame-options': 'DENY',
        'referrer-policy': 'no-referrer',
        'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
      });
      expect(headers['x-request-id']).toBeTruthy();
    }
  });
});

// B11, B12 and 8 in a real headless Chromium against a real server: search narrows and pages, the
// narrower filters show exactly what the API answers for them, the view lives in the address (reload,
// shared link), the type counts and the total follow, live records obey the search, and the shown view
// exports as NDJSON and CSV (1,000 records).
import { readFile, rm } from 'node:fs/promises';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWebIntoTemp, launchBrowser } from '../support/browser.js';
import {
  createAgentFixture,
  startEmbeddedHarness,
  startRun,
  writeOk,
  type AgentFixture,
  type Harness,
} from '../support/harness.js';

const MINUTE = 60_000;
const IMPORT = `mutation($input: [ImportMemoryInput!]!) { importMemories(input: $input) { id } }`;
const PAGE = `query($agentId: UUID, $filter: MemoryFilter, $after: String) {
  memories(agentId: $agentId, filter: $filter, first: 200, after: $after) {
    edges { node { id } } pageInfo { hasNextPage endCursor }
  }
}`;

let h: Harness;
let webRoot: string;
let base: string;
let browser: Browser;
let desk: AgentFixture;
let bulk: AgentFixture;
let newsRun: { runId: string; token: string };
const contexts: BrowserContext[] = [];
const pageErrors: string[] = [];

/** Every id the API lists for `filter`, newest first: what the page must show. */
async function apiIds(agentId: string, filter: Record<string, unknown>): Promise<string[]> {
  const ids: string[] = [];
  let after: string | null = null;
  for (let page = 0; page < 20; page++) {
    type Page = {
      memories: { edges: { node: { id: string } }[]; pageInfo: { hasNextPage: boolean; endCursor: string } };
    };
    const data: Page = await h.ok<Page>(PAGE, { agentId, filter, after });
    ids.push(...data.memories.edges.map((edge) => edge.node.id));
    if (!data.memories.pageInfo.hasNextPage) return ids;
    after = data.memories.pageInfo.endCursor;
  }
  throw new Error('more than 20 pages');
}

async function open(token: string, query = ''): Promise<Page> {
  const ctx = await browser.newContext({
    timezoneId: 'America/New_York',
    locale: 'en-US',
    viewport: { width: 1280, height: 900 },
    acceptDownloads: true,
  });
  contexts.push(ctx);
  const p = await ctx.newPage();
  p.on('pageerror', (error) => pageErrors.push(error.message));
  await p.goto(`${base}/${query}#token=${token}`);
  await p.locator('[data-summary]').waitFor();
  return p;
}

const shownIds = (p: Page) =>
  p.locator('article.record').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-id')!));

/** Clicks "Load older" until every record is shown (bounded). */
async function showAll(p: Page): Promise<string[]> {
  for (let i = 0; i < 10; i++) {
    const older = p.getByRole('button', { name: 'Load older' });
    if ((await older.count()) === 0) break;
    const before = (await shownIds(p)).length;
    await older.click();
    await expect.poll(async () => (await shownIds(p)).length).toBeGreaterThan(before);
  }
  return shownIds(p);
}

async function waitLive(p: Page): Promise<void> {
  await expect.poll(() => p.locator('[data-live]').getAttribute('data-live'), { timeout: 5000 }).toBe('live');
}

beforeAll(async () => {
  webRoot = await buildWebIntoTemp('memory-web-search-');
  h = await startEmbeddedHarness({ webRoot });
  const address = await h.server.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${address.port}`;
  desk = await createAgentFixture(h, {
    name: 'search-desk',
    instruments: ['BTC', 'ETH'],
    producers: { ema: ['ANALYSIS', '5m'], news: ['ANALYSIS', null], review: ['REVIEW', null] },
  });
  const candle = new Date(Math.floor(Date.now() / (5 * MINUTE)) * 5 * MINUTE).toISOString();
  const emaRun = await startRun(h, desk.producers.ema!.id, candle);
  newsRun = await startRun(h, desk.producers.news!.id);
  const reviewRun = await startRun(h, desk.producers.review!.id);
  const now = Date.now();
  // 130 records over 13 hours: 70 mention funding (60 in content, 10 only in metadata), 60 do not.
  const input = Array.from({ length: 130 }, (_, i) => {
    const run = i % 3 === 0 ? newsRun : i % 3 === 1 ? emaRun : reviewRun;
    const mentions = i < 60 ? 'content' : i < 70 ? 'metadata' : 'none';
    return {
      agentId: desk.agentId,
      type: i % 2 ? 'macro_note' : 'ema_handoff',
      scope: i % 5 === 0 ? 'AGENT' : 'INSTRUMENTS',
      instruments: i % 5 === 0 ? [] : [i % 2 ? 'BTC' : 'ETH'],
      sourceRunId: run.runId,
      createdAt: new Date(now - (i + 1) * 6 * MINUTE).toISOString(),
      content: mentions === 'content' ? `Funding rate flipped, note ${i}` : `Quiet tape, note ${i}`,
      metadata: mentions === 'metadata' ? { driver: 'perpetual funding skew' } : { driver: 'none' },
    };
  });
  await h.ok(IMPORT, { input });

  bulk = await createAgentFixture(h, { name: 'bulk-desk', producers: { scan: ['ANALYSIS', null] } });
  const scanRun = await startRun(h, bulk.producers.scan!.id);
  for (let batch = 0; batch < 4; batch++) {
    await h.ok(IMPORT, {
      input: Array.from({ length: 250 }, (_, i) => ({
        agentId: bulk.agentId,
        type: 'scan_note',
        scope: 'AGENT',
        sourceRunId: scanRun.runId,
        createdAt: new Date(now - (batch * 250 + i + 1) * MINUTE).toISOString(),
        content: `scan ${batch * 250 + i}, "quoted", with a comma\nand a second line`,
        metadata: { n: batch * 250 + i },
      })),
    });
  }
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  for (const ctx of contexts) await ctx.close();
  await browser?.close();
  await h?.close();
  if (webRoot) await rm(webRoot, { recursive: true, force: true });
});

describe('B11, B2: search and filters on the page', () => {
  it('search narrows the list before pagination, pages with "Load older", and survives a reload from the address', async () => {
    const p = await open(desk.operatorToken);
    const expected = await apiIds(desk.agentId, { text: 'funding' });
    expect(expected).toHaveLength(70);

    await p.getByRole('searchbox', { name: 'Search' }).fill('funding');
    await p.getByRole('searchbox', { name: 'Search' }).press('Enter');
    await expect.poll(() => p.locator('[data-summary]').textContent()).toContain('“funding”');
    await expect.poll(() => shownIds(p)).toEqual(expected.slice(0, 50));
    // The counts come with the same answer but are a separate state update: wait for them too.
    await expect.poll(() => p.locator('[data-summary]').getAttribute('data-total')).toBe('70');
    expect(await p.locator('[data-summary]').textContent()).toContain('50 of 70 shown');
    expect(await showAll(p)).toEqual(expected);
    expect(new URL(p.url()).searchParams.get('q')).toBe('funding');

    await p.reload();
    await expect.poll(() => shownIds(p)).toEqual(expected.slice(0, 50));
    expect(await p.getByRole('searchbox', { name: 'Search' }).inputValue()).toBe('funding');
  });

  it('instrument, run kind, producer and freshness filters show what the API answers; the type counts follow', async () => {
    const p = await open(desk.operatorToken);
    await p.locator('[data-filter="instruments"]').getByLabel('BTC').check();
    await p.locator('[data-filter="runKinds"]').getByLabel('Analysis').check();
    const filter = { instruments: ['BTC'], runKinds: ['ANALYSIS'] };
    const expected = await apiIds(desk.agentId, filter);
    expect(expected.length).toBeGreaterThan(0);
    await expect.poll(async () => (await showAll(p)).length).toBe(expected.length);
    expect(await shownIds(p)).toEqual(expected);
    // B1: the type list counts with the same filter; its counts add up to the total.
    const counts = await p
      .locator('.type-list li')
      .evaluateAll((nodes) => nodes.map((n) => Number(n.getAttribute('data-count'))));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(expected.length);

    await p.locator('[data-filter="producerIds"]').getByLabel(/^news/).check();
    const byNews = await apiIds(desk.agentId, { ...filter, producerIds: [desk.producers.news!.id] });
    await expect.poll(() => shownIds(p)).toEqual(byNews.slice(0, 50));

    await p.getByRole('radio', { name: 'Stale' }).check();
    const stale = await apiIds(desk.agentId, {
      ...filter,
      producerIds: [desk.producers.news!.id],
      freshness: 'STALE',
    });
    await expect.poll(() => shownIds(p)).toEqual(stale.slice(0, 50));

    // The whole view is in the address: a second tab opened on it shows the same records.
    const shared = new URL(p.url());
    const q = await open(desk.operatorToken, shared.search);
    await expect.poll(() => shownIds(q)).toEqual(stale.slice(0, 50));
    expect(await q.locator('[data-filter="instruments"]').getByLabel('BTC').isChecked()).toBe(true);
    expect(await q.getByRole('radio', { name: 'Stale' }).isChecked()).toBe(true);
  });

  it('B5: a live record appears under an active search only when it matches', async () => {
    const p = await open(desk.operatorToken, '?q=funding');
    await waitLive(p);
    const before = await shownIds(p);
    const miss = await writeOk(h, newsRun.token, {
      type: 'macro_note',
      scope: 'AGENT',
      content: 'nothing to see',
    });
    const hit = await writeOk(h, newsRun.token, {
      type: 'macro_note',
      scope: 'AGENT',
      content: 'funding spikes',
    });
    await expect.poll(() => shownIds(p)).toEqual([hit.id, ...before]);
    expect(await shownIds(p)).not.toContain(miss.id);
    expect(pageErrors).toEqual([]);
  });
});

describe('B12: export of the shown view', () => {
  it('exports 1,000 records as NDJSON and as CSV, newest first, the same records as the list', async () => {
    const p = await open(bulk.operatorToken);
    const expected = await apiIds(bulk.agentId, {});
    expect(expected).toHaveLength(1000);

    const [ndjson] = await Promise.all([
      p.waitForEvent('download'),
      p.locator('.export-menu').getByRole('button', { name: 'NDJSON' }).click(),
    ]);
    const lines = (await readFile((await ndjson.path())!, 'utf8')).trim().split('\n');
    expect(lines.map((line) => (JSON.parse(line) as { id: string }).id)).toEqual(expected);
    expect(ndjson.suggestedFilename()).toMatch(/\.ndjson$/);

    const [csv] = await Promise.all([
      p.waitForEvent('download'),
      p.locator('.export-menu').getByRole('button', { name: 'CSV' }).click(),
    ]);
    const text = await readFile((await csv.path())!, 'utf8');
    expect(csv.suggestedFilename()).toMatch(/\.csv$/);
    // Every record's quoted content holds a newline: count records by their ids, in order.
    const ids = [...text.matchAll(/^([0-9a-f-]{36}),/gm)].map((match) => match[1]);
    expect(ids).toEqual(expected);
    await expect.poll(() => p.locator('.export-status').textContent()).toMatch(/^Saved /);
  });
});

// The operator's Memories tab in a real headless Chromium against a real server on a random port:
// sign-in, type counts, type and date filters (DST day), "Load older", live updates, sign-out.
import { execFileSync } from 'node:child_process';
import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/demo/seed.js';
import { launchBrowser } from '../support/browser.js';
import {
  createAgentFixture,
  startEmbeddedHarness,
  startRun,
  writeOk,
  type Harness,
} from '../support/harness.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const webRoot = path.join(repoRoot, 'dist/web');
const outputDir = path.join(repoRoot, 'test-output');
const ZONE = 'America/New_York';
const UPDATE_DOCS = process.env.DOCS_SCREENSHOTS === '1';
const MINUTE = 60_000;

interface Seeded {
  id: string;
  type: string;
  createdAt: string;
}

const IMPORT = `mutation($input: [ImportMemoryInput!]!) { importMemories(input: $input) { id type createdAt } }`;

let h: Harness;
let base: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let operatorToken: string;
let liveRunToken: string;
const pageErrors: string[] = [];
const seeded: Seeded[] = [];
let newestEmaId: string;
let correctionId: string;
let originalNoteId: string;
const dstInside: string[] = [];

/** The list's order: newest first, equal instants ⇒ greater id first. */
const newestFirst = (records: Seeded[]) =>
  [...records]
    .sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt) || (a.id < b.id ? 1 : -1))
    .map((r) => r.id);

async function importBatch(items: Record<string, unknown>[]): Promise<Seeded[]> {
  const { importMemories } = await h.ok<{ importMemories: Seeded[] }>(IMPORT, { input: items });
  seeded.push(...importMemories);
  return importMemories;
}

async function shownIds(): Promise<string[]> {
  return page.locator('article.record').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-id')!));
}

async function typeCounts(): Promise<Record<string, number>> {
  const rows = await page
    .locator('.type-list li')
    .evaluateAll((nodes) =>
      nodes.map((n) => [n.getAttribute('data-type')!, Number(n.getAttribute('data-count'))]),
    );
  return Object.fromEntries(rows);
}

async function screenshot(name: string, target: Page = page, fullPage = false): Promise<void> {
  await target.screenshot({ path: path.join(outputDir, name), fullPage });
}

async function newPage(viewport: { width: number; height: number }): Promise<[BrowserContext, Page]> {
  const ctx = await browser.newContext({ timezoneId: ZONE, locale: 'en-US', viewport });
  const p = await ctx.newPage();
  p.on('pageerror', (error) => pageErrors.push(error.message));
  return [ctx, p];
}

beforeAll(async () => {
  // The page under test is the bundle `npm start` serves: build it first.
  execFileSync(process.execPath, [path.join(repoRoot, 'scripts/build-web.mjs')], { cwd: repoRoot });
  await mkdir(outputDir, { recursive: true });

  h = await startEmbeddedHarness({ webRoot });
  const address = await h.server.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${address.port}`;

  const fx = await createAgentFixture(h, {
    name: 'e2e-trader',
    instruments: ['BTC', 'ETH', 'SOL'],
    producers: {
      ema: ['ANALYSIS', '5m'],
      news: ['ANALYSIS', null],
      trader: ['TRADING', null],
    },
  });
  operatorToken = fx.operatorToken;
  const now = Date.now();
  const emaRun = await startRun(
    h,
    fx.producers.ema!.id,
    new Date(Math.floor(now / (5 * MINUTE)) * 5 * MINUTE).toISOString(),
  );
  const newsRun = await startRun(h, fx.producers.news!.id);
  const tradeRun = await startRun(h, fx.producers.trader!.id);
  liveRunToken = newsRun.token;
  const item = (fields: Record<string, unknown>) => ({
    agentId: fx.agentId,
    scope: 'AGENT',
    metadata: {},
    ...fields,
  });

  // 60 EMA handoffs, every 10 minutes from an hour ago: more than one page of one type (B2, B4).
  const ema = await importBatch(
    Array.from({ length: 60 }, (_, i) => {
      const createdAt = new Date(now - 60 * MINUTE - i * 10 * MINUTE);
      const boundary = new Date(Math.floor(createdAt.getTime() / (5 * MINUTE)) * 5 * MINUTE);
      return item({
        type: 'ema_handoff',
        scope: 'INSTRUMENTS',
        instruments: [i % 2 ? 'BTC' : 'ETH'],
        timeframe: '5m',
        sourceRunId: emaRun.runId,
        createdAt: createdAt.toISOString(),
        content: `EMA handoff #${i}: fast below slow, no entry confirmation.`,
        metadata: {
          handoff_version: 1,
          evidence_boundary: boundary.toISOString(),
          sources: [
            {
              indicator_run_id: emaRun.runId,
              instrument_id: i % 2 ? 'BTC' : 'ETH',
              timeframe: '5m',
              bar_index: 499 - i,
              opened_at: new Date(boundary.getTime() - 5 * MINUTE).toISOString(),
              closed_at: boundary.toISOString(),
            },
          ],
          observations: { fast_ema: 2689.21 + i, slow_ema: 2691.1 },
          interpretation: {
            bias: 'bearish',
            confidence: { label: 'moderate', rationale: 'no confirmation' },
          },
          // The newest one is still valid (X7); the rest expired long ago.
          ...(i === 0 ? { stale_after: new Date(now + 60 * MINUTE).toISOString() } : {}),
        },
      });
    }),
  );
  newestEmaId = ema[0]!.id;

  // B3: America/New_York 2026-03-08 runs from 05:00Z to 04:00Z next day (23 h). Three records just
  // inside, three just outside — one of them inside a naive 24-hour day, one inside the UTC day.
  const dst = await importBatch(
    [
      ['2026-03-08T04:59:59.999Z', 'outside: 1 ms before local midnight (inside the UTC day)'],
      ['2026-03-08T05:00:00.000Z', 'inside: local midnight'],
      ['2026-03-08T12:00:00.000Z', 'inside: local 08:00 EDT'],
      ['2026-03-09T03:59:59.999Z', 'inside: 1 ms before the next local midnight'],
      ['2026-03-09T04:00:00.000Z', 'outside: the next local midnight'],
      ['2026-03-09T04:30:00.000Z', 'outside: inside a naive 24-hour day'],
    ].map(([createdAt, content]) => item({ type: 'dst_probe', createdAt, content })),
  );
  dstInside.push(...[dst[3]!, dst[2]!, dst[1]!].map((r) => r.id));

  const [note] = await importBatch([
    item({
      type: 'macro_note',
      scope: 'INSTRUMENTS',
      instruments: ['ETH', 'SOL'],
      sourceRunId: newsRun.runId,
      createdAt: new Date(now - 3 * 60 * MINUTE).toISOString(),
      content: 'ETF flow report due 14:30 UTC.',
      metadata: { event: 'etf_flows', scheduled_at: '14:30Z' },
    }),
  ]);
  originalNoteId = note!.id;
  const [correction] = await importBatch([
    item({
      type: 'macro_note_correction',
      scope: 'INSTRUMENTS',
      instruments: ['ETH', 'SOL'],
      sourceRunId: newsRun.runId,
      // Same instant as EMA handoff #6: equal instants are ordered by id.
      createdAt: new Date(now - 2 * 60 * MINUTE).toISOString(),
      content: 'Correction: the ETF flow report is at 15:30 UTC.',
      metadata: { event: 'etf_flows', scheduled_at: '15:30Z' },
      links: [{ targetMemoryId: originalNoteId, linkType: 'corrects' }],
    }),
  ]);
  correctionId = correction!.id;
  await importBatch([
    item({
      type: 'trading_decision',
      scope: 'INSTRUMENTS',
      instruments: ['ETH'],
      sourceRunId: tradeRun.runId,
      createdAt: new Date(now - 30 * MINUTE).toISOString(),
      content: 'No trade: event risk.',
      metadata: { decision: 'no_trade' },
      links: [
        { targetMemoryId: newestEmaId, linkType: 'considered' },
        { targetMemoryId: correctionId, linkType: 'considered' },
      ],
    }),
  ]);

  browser = await launchBrowser();
  [context, page] = await newPage({ width: 1280, height: 900 });
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await h?.close();
});

describe('Memories tab in a browser', () => {
  it('B1/B6: the #token link signs in, leaves the address bar, lists types with counts and records newest first', async () => {
    await page.goto(`${base}/#token=${operatorToken}`);
    await page.locator('article.record').first().waitFor();

    expect(page.url()).toBe(`${base}/`);
    expect(await page.evaluate(() => sessionStorage.getItem('memory-service.operator-token'))).toBe(
      operatorToken,
    );
    expect(await typeCounts()).toEqual({
      dst_probe: 6,
      ema_handoff: 60,
      macro_note: 1,
      macro_note_correction: 1,
      trading_decision: 1,
    });
    await expect.poll(shownIds).toEqual(newestFirst(seeded).slice(0, 50));

    const newest = page.locator(`article[data-id="${newestEmaId}"]`);
    await expect.poll(() => newest.locator('[data-freshness]').textContent()).toBe('FRESH');
    expect(await newest.textContent()).toContain('ema');
    const older = page.locator('article[data-type="ema_handoff"]').nth(1);
    expect(await older.locator('[data-freshness]').textContent()).toBe('STALE');

    // Corrections are marked on the record and on its link.
    const correction = page.locator(`article[data-id="${correctionId}"]`);
    expect(await correction.locator('.badge-correction').textContent()).toBe('Correction');
    expect(await correction.locator('.link-correction').textContent()).toContain(originalNoteId.slice(0, 8));
    // Provenance and time in the operator's zone.
    expect(await correction.locator('.producer').textContent()).toBe('news');
    expect(await correction.locator('.kind').textContent()).toBe('ANALYSIS');
    expect(await correction.locator('time').first().textContent()).toMatch(/E[SD]T$/);
    await screenshot('memories-all-types.png');
  });

  it('B2/B4: one type is filtered before pagination and "Load older" continues with the same filter', async () => {
    await page.getByRole('checkbox', { name: /ema_handoff/ }).check();
    const emaIds = newestFirst(seeded.filter((r) => r.type === 'ema_handoff'));
    await expect.poll(shownIds).toEqual(emaIds.slice(0, 50));

    await page.getByRole('button', { name: 'Load older' }).click();
    await expect.poll(shownIds).toEqual(emaIds);
    // Keyboard focus moves to the first record of the page just loaded.
    // (Focus follows the render that shows the page, so it is polled like the list itself.)
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-id')))
      .toBe(emaIds[50]);
    expect(await page.getByRole('button', { name: 'Load older' }).count()).toBe(0);
    await page.getByText('No older records.').waitFor();
    expect(await page.getByRole('checkbox', { name: /ema_handoff/ }).isChecked()).toBe(true);

    // Content and metadata on demand; a version-1 handoff reads as tables.
    const first = page.locator(`article[data-id="${newestEmaId}"]`);
    await first.getByRole('button', { name: 'Show content and metadata' }).click();
    const handoff = first.locator('[data-handoff]');
    await handoff.waitFor();
    const text = (await handoff.textContent()) ?? '';
    for (const part of [
      'Evidence boundary',
      'Sources',
      'Observations',
      'Interpretation',
      'bar_index',
      'fast_ema',
    ]) {
      expect(text).toContain(part);
    }
    expect(await handoff.locator('th', { hasText: 'confidence.label' }).count()).toBe(1);
    await screenshot('memories-one-type-expanded.png');
  });

  it('B5: a record written during the test appears at the top without a reload; the filter stays', async () => {
    await page.evaluate(() => Object.assign(window, { __notReloaded: true }));
    // At the top of the list (further down, live records wait under a bar: memories-agents.test.ts).
    await page.evaluate(() => window.scrollTo(0, 0));
    await expect
      .poll(() => page.locator('[data-live]').getAttribute('data-live'), { timeout: 5000 })
      .toBe('live');

    const noise = await writeOk(h, liveRunToken, {
      type: 'noise_note',
      scope: 'AGENT',
      content: 'Does not match the ema_handoff filter.',
    });
    const live = await writeOk(h, liveRunToken, {
      type: 'ema_handoff',
      scope: 'INSTRUMENTS',
      instruments: ['ETH'],
      content: 'Written while the page is open.',
      metadata: { handoff_version: 1, observations: { fast_ema: 2700.5 } },
    });

    await expect.poll(async () => (await shownIds())[0], { timeout: 5000 }).toBe(live.id);
    const ids = await shownIds();
    expect(ids).toHaveLength(61);
    expect(new Set(ids).size).toBe(61);
    expect(ids).not.toContain(noise.id);
    expect(await page.locator(`article[data-id="${live.id}"] .badge-new`).count()).toBe(1);
    expect(await page.getByRole('checkbox', { name: /ema_handoff/ }).isChecked()).toBe(true);
    // The type counts follow (B1): the new record and the non-matching type are counted.
    await expect.poll(typeCounts).toMatchObject({ ema_handoff: 61, noise_note: 1 });
    expect(await page.evaluate(() => (window as unknown as { __notReloaded?: boolean }).__notReloaded)).toBe(
      true,
    );
    await screenshot('memories-live.png');
  });

  it('B3: a custom local-date range in America/New_York covers the 23-hour day of the DST change', async () => {
    await page.getByRole('button', { name: /All types/ }).click();
    await page.getByRole('radio', { name: 'Dates' }).check();
    await page.locator('input[name="fromDate"]').fill('2026-03-08');
    await page.locator('input[name="toDate"]').fill('2026-03-08');
    await page.getByRole('button', { name: 'Apply dates' }).click();

    await expect.poll(shownIds).toEqual(dstInside);
    // The type list follows the window (B1).
    await expect.poll(typeCounts).toEqual({ dst_probe: 3 });
    const windowLine = page.locator('.window-line');
    expect(await windowLine.getAttribute('data-window-from')).toBe('2026-03-08T05:00:00.000Z');
    expect(await windowLine.getAttribute('data-window-to')).toBe('2026-03-09T04:00:00.000Z');
    expect(await windowLine.textContent()).toContain('(23 h)');
    await screenshot('memories-dst-range.png');
  });

  it('B5: the subscription follows the filter: outside the date range nothing arrives, under "1h" it does', async () => {
    await expect
      .poll(() => page.locator('[data-live]').getAttribute('data-live'), { timeout: 5000 })
      .toBe('live');
    const outside = await writeOk(h, liveRunToken, {
      type: 'note',
      scope: 'AGENT',
      content: 'Written today.',
    });
    await page.waitForTimeout(750);
    expect(await shownIds()).toEqual(dstInside);

    await page.getByRole('radio', { name: '1h' }).check();
    await expect.poll(async () => (await shownIds()).includes(outside.id)).toBe(true);
    expect((await typeCounts()).dst_probe).toBeUndefined();
    await expect
      .poll(() => page.locator('[data-live]').getAttribute('data-live'), { timeout: 5000 })
      .toBe('live');
    const live = await writeOk(h, liveRunToken, {
      type: 'note',
      scope: 'AGENT',
      content: 'Within the last hour.',
    });
    await expect.poll(async () => (await shownIds())[0], { timeout: 5000 }).toBe(live.id);
    expect(await page.getByRole('radio', { name: '1h' }).isChecked()).toBe(true);
    await expect.poll(async () => (await typeCounts()).note).toBe(2);
  });

  it('signs out, and a bad token lands back on sign-in with a message', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Operator token').waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem('memory-service.operator-token'))).toBeNull();

    // Keyboard only: type the token and press Enter.
    await page.getByLabel('Operator token').fill('op_not_a_real_token');
    await page.getByLabel('Operator token').press('Enter');
    await page.getByRole('alert').filter({ hasText: 'not accepted' }).waitFor();
    expect(await page.getByLabel('Operator token').isVisible()).toBe(true);
    await screenshot('memories-sign-in-rejected.png');
    expect(pageErrors).toEqual([]);
  });

  it('demo data: screenshots at 1280 px and at phone width', async () => {
    const demo = await startEmbeddedHarness({ webRoot });
    try {
      const seed = await seedDemo(demo.db, new Date());
      const address = await demo.server.listen(0, '127.0.0.1');
      const demoBase = `http://127.0.0.1:${address.port}`;
      for (const [name, viewport] of [
        ['memories-demo.png', { width: 1280, height: 1000 }],
        ['memories-demo-phone.png', { width: 390, height: 844 }],
      ] as const) {
        const [ctx, p] = await newPage(viewport);
        try {
          await p.goto(`${demoBase}/#token=${seed!.operatorToken}`);
          await p.locator('article.record').first().waitFor();
          await expect.poll(() => p.locator('article.record').count()).toBe(seed!.memoryCount);
          const handoff = p.locator('article[data-type="ema_handoff"]').first();
          await handoff.getByRole('button', { name: 'Show content and metadata' }).click();
          await handoff.locator('[data-handoff]').waitFor();
          await expect
            .poll(() => p.locator('[data-live]').getAttribute('data-live'), { timeout: 3000 })
            .not.toBe('connecting');
          await p.evaluate(() => window.scrollTo(0, 0));
          if (viewport.width < 600) {
            expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
              viewport.width,
            );
          }
          await screenshot(name, p);
          // DOCS_SCREENSHOTS=1 refreshes the README's picture of the tab.
          if (UPDATE_DOCS && name === 'memories-demo.png') {
            await copyFile(path.join(outputDir, name), path.join(repoRoot, 'docs', 'memories-tab.png'));
          }
        } finally {
          await ctx.close();
        }
      }
      expect(pageErrors).toEqual([]);
    } finally {
      await demo.close();
    }
  });
});

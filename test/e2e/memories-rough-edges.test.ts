// B3, B6, the Memories tab's rough edges, in a real headless Chromium against a real server with
// the demo data: date inputs that show the whole date, one date style, "Dates" chosen but not applied, a
// range over 366 days refused before any request, no "new records appear" under a range that has ended,
// collapsed filters at phone width, and a scroll cue on a table wider than its card.
import { rm } from 'node:fs/promises';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo, type DemoSeed } from '../../src/demo/seed.js';
import { buildWebIntoTemp, launchBrowser } from '../support/browser.js';
import { startEmbeddedHarness, type Harness } from '../support/harness.js';

let h: Harness;
let webRoot: string;
let base: string;
let browser: Browser;
let seed: DemoSeed;
const contexts: BrowserContext[] = [];
const pageErrors: string[] = [];

const ISO_DATE = /\d{4}-\d{2}-\d{2}/;

async function open(viewport = { width: 1280, height: 800 }): Promise<Page> {
  const ctx = await browser.newContext({ timezoneId: 'America/New_York', locale: 'en-US', viewport });
  contexts.push(ctx);
  const p = await ctx.newPage();
  p.on('pageerror', (error) => pageErrors.push(error.message));
  await p.goto(`${base}/#token=${seed.operatorToken}`);
  await p.locator('article.record').first().waitFor();
  return p;
}

/** The variables of every `memories` request the page sends from now on. */
function recordMemoryRequests(p: Page): unknown[] {
  const sent: unknown[] = [];
  p.on('request', (request) => {
    const body = request.postData();
    if (request.url().endsWith('/graphql') && body?.includes('memories(')) {
      sent.push((JSON.parse(body) as { variables?: unknown }).variables);
    }
  });
  return sent;
}

const summary = (p: Page) => p.locator('[data-summary]').textContent();

beforeAll(async () => {
  webRoot = await buildWebIntoTemp('memory-web-rough-');
  h = await startEmbeddedHarness({ webRoot });
  seed = (await seedDemo(h.db, new Date()))!;
  const address = await h.server.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${address.port}`;
  browser = await launchBrowser();
});

afterAll(async () => {
  for (const ctx of contexts) await ctx.close();
  await browser?.close();
  await h?.close();
  if (webRoot) await rm(webRoot, { recursive: true, force: true });
});

describe('B3, B6: rough edges', () => {
  it('at 1280 px the date inputs are wide enough for a whole localized date', async () => {
    const p = await open();
    await p.getByRole('radio', { name: 'Dates' }).check();
    for (const name of ['fromDate', 'toDate']) {
      const box = await p.locator(`input[name="${name}"]`).boundingBox();
      // "11/30/2026" plus the picker icon needs about 130 px; side by side they had 116.
      expect(box!.width).toBeGreaterThanOrEqual(180);
    }
  });

  it('"Dates" chosen but not applied stays outlined while the filled segment names the filter in force', async () => {
    const p = await open();
    await p.getByRole('radio', { name: 'Dates' }).check();
    const segment = (label: string) => p.locator('.segment', { hasText: label });
    expect(await segment('All time').getAttribute('class')).toContain('segment-on');
    expect(await segment('Dates').getAttribute('class')).toContain('segment-pending');
    expect(await p.locator('.pending-note').textContent()).toBe(
      'Not applied yet: the list still shows All time.',
    );
    expect(await summary(p)).toMatch(/^All time · all types/);

    await p.getByRole('button', { name: 'Apply dates' }).click();
    await expect.poll(() => segment('Dates').getAttribute('class')).toContain('segment-on');
    expect(await segment('All time').getAttribute('class')).not.toContain('segment-on');
    expect(await p.locator('.pending-note').count()).toBe(0);
  });

  it('one date style: the applied range and the handoff boundary read like the cards, no ISO dates on screen', async () => {
    const p = await open();
    await p.getByRole('radio', { name: 'Dates' }).check();
    await p.locator('input[name="fromDate"]').fill('2026-03-07');
    await p.locator('input[name="toDate"]').fill('2026-03-08');
    await p.getByRole('button', { name: 'Apply dates' }).click();
    await expect.poll(() => summary(p)).toMatch(/^Mar 7, 2026 – Mar 8, 2026 · all types/);
    expect(await p.locator('.window-line').textContent()).toMatch(/^From Mar 7, 2026, 12:00:00 AM EST to /);

    await p.getByRole('radio', { name: 'All time' }).check();
    const handoff = p.locator('article[data-type="ema_handoff"]').first();
    await handoff.getByRole('button', { name: 'Show content and metadata' }).click();
    const boundary = handoff.locator('.handoff-boundary');
    expect(await boundary.textContent()).toMatch(
      /^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{2}:\d{2}:\d{2} [AP]M E[SD]T$/,
    );
    // The exact instant stays one hover away.
    expect(await boundary.locator('time').getAttribute('title')).toMatch(ISO_DATE);
    // Visible text only: the raw JSON stays closed, ids carry no dates.
    expect(await p.locator('main').innerText()).not.toMatch(ISO_DATE);
  });

  it('one date style on the record page and the Context tab too: the exact instant only on hover', async () => {
    const p = await open();
    const decision = p.locator('article[data-type="trading_decision"]').first();
    const id = await decision.getAttribute('data-id');
    await p.goto(`${base}/#/memory/${id}`);
    const record = p.locator('main.record-page');
    await record.waitFor();
    expect(await record.innerText()).not.toMatch(ISO_DATE);
    expect(await record.locator('time').first().getAttribute('title')).toMatch(ISO_DATE);
    await p.goto(`${base}/#/context?instrument=ETH`);
    const context = p.locator('main.context-tab');
    await context.locator('.ctx-at').waitFor();
    expect(await context.innerText()).not.toMatch(ISO_DATE);
  });

  it('a range over 366 days is refused on the page, before any request, and can be corrected', async () => {
    const p = await open();
    const sent = recordMemoryRequests(p);
    await p.getByRole('radio', { name: 'Dates' }).check();
    await p.locator('input[name="fromDate"]').fill('2025-01-01');
    await p.locator('input[name="toDate"]').fill('2026-01-02');
    await p.getByRole('button', { name: 'Apply dates' }).click();
    expect(await p.getByRole('alert').textContent()).toBe(
      'A range may cover at most 366 days; this one covers 367.',
    );
    expect(await p.getByRole('button', { name: 'Retry' }).count()).toBe(0);
    expect(sent).toEqual([]);

    await p.locator('input[name="fromDate"]').fill('2025-01-02');
    await p.getByRole('button', { name: 'Apply dates' }).click();
    await expect.poll(() => sent.length).toBe(1);
    expect(await p.locator('.field-error').count()).toBe(0);
  });

  it('under a range that has ended, the empty list does not promise new records', async () => {
    const p = await open();
    await p.getByRole('radio', { name: 'Dates' }).check();
    await p.locator('input[name="fromDate"]').fill('2020-01-01');
    await p.locator('input[name="toDate"]').fill('2020-01-02');
    await p.getByRole('button', { name: 'Apply dates' }).click();
    const empty = p.locator('.empty');
    await empty.waitFor();
    expect(await empty.textContent()).toContain(
      'This date range has ended: no new records can fall into it.',
    );
    expect(await empty.textContent()).not.toContain('New records appear here');

    // All time is open: the promise is back.
    await p.getByRole('button', { name: 'Clear filters' }).click();
    await p.locator('article.record').first().waitFor();
  });

  it('at phone width the filters start collapsed to one button that says what is active, and open on demand', async () => {
    const p = await open({ width: 390, height: 844 });
    const toggle = p.getByRole('button', { name: /^Filters/ });
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    expect(await p.locator('#filter-panels').isVisible()).toBe(false);
    expect(await toggle.textContent()).toContain('All time · all types');
    // The first record is on the first screen, right below the header and the one-line filter button
    // (the open filters took about 500 of the 844 px).
    expect((await toggle.boundingBox())!.height).toBeLessThan(60);
    const first = await p.locator('article.record').first().boundingBox();
    expect(first!.y).toBeLessThan(340);

    await toggle.click();
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    await p.getByRole('radio', { name: '24h' }).check();
    await expect.poll(() => toggle.textContent()).toContain('Last 24h · all types');
    await toggle.click();
    expect(await p.locator('#filter-panels').isVisible()).toBe(false);
    expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  });

  it('a table wider than its card says so, shows an edge shadow and scrolls from the keyboard', async () => {
    const p = await open({ width: 390, height: 844 });
    const handoff = p.locator('article[data-type="ema_handoff"]').first();
    await handoff.getByRole('button', { name: 'Show content and metadata' }).click();
    const region = handoff.getByRole('region', { name: 'Sources (scrolls sideways)' });
    await region.waitFor();
    expect(await handoff.locator('.scroll-hint').first().textContent()).toBe(
      'Scroll sideways for more columns →',
    );
    expect(await region.evaluate((el) => getComputedStyle(el).backgroundImage)).toContain('gradient');
    await region.focus();
    await p.keyboard.press('ArrowRight');
    await p.keyboard.press('End');
    await expect.poll(() => region.evaluate((el) => el.scrollLeft)).toBeGreaterThan(0);
    // A table that fits is neither a region nor hinted.
    const fitting = handoff.locator('.table-scroll[data-overflowing="false"]');
    expect(await fitting.count()).toBeGreaterThan(0);
    expect(await fitting.first().getAttribute('tabindex')).toBeNull();
    expect(pageErrors).toEqual([]);
  });
});

// Every id opens something, and what Trading saw (B6, C9), in a real headless Chromium
// against a real server: a record's page (content, metadata, provenance, links both ways, corrections),
// the Context tab in America/New_York with instants typed across both 2026 DST changes (C9), and a
// decision's audit (T3). Back and Forward move between them; the list underneath keeps its place.
import { randomUUID } from 'node:crypto';
import { copyFile, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/demo/seed.js';
import { buildWebIntoTemp, launchBrowser, repoRoot, signInToList } from '../support/browser.js';
import {
  ADMIN_TOKEN,
  createAgentFixture,
  startEmbeddedHarness,
  startRun,
  writeOk,
  type AgentFixture,
  type Harness,
} from '../support/harness.js';

const outputDir = path.join(repoRoot, 'test-output');
const ZONE = 'America/New_York';
const MINUTE = 60_000;
const IMPORT = `mutation($input: [ImportMemoryInput!]!) { importMemories(input: $input) { id createdAt } }`;
/** Set to 1 to refresh docs/memories-tab.md's pictures (docs/record-page.png, docs/context-tab.png). */
const UPDATE_DOCS = process.env.DOCS_SCREENSHOTS === '1';

let h: Harness;
let webRoot: string;
let base: string;
let browser: Browser;
let fx: AgentFixture;
let other: AgentFixture;
let otherRecordId: string;
const contexts: BrowserContext[] = [];
const pageErrors: string[] = [];
/** The records of 2026-03-08 (America/New_York springs forward at 07:00Z) by name, and the recent ones. */
const ids: Record<string, string> = {};
let recentIds: string[] = [];

async function importOne(name: string, item: Record<string, unknown>): Promise<void> {
  const { importMemories } = await h.ok<{ importMemories: { id: string }[] }>(IMPORT, {
    input: [{ agentId: fx.agentId, scope: 'INSTRUMENTS', instruments: ['ETH'], ...item }],
  });
  ids[name] = importMemories[0]!.id;
}

/**
 * E1 (06:00Z) is replaced in its group by E2 at 07:45Z; N1 (06:10Z) expires at 06:20Z; C1 (06:15Z)
 * corrects E1; D1 (06:40Z) considered E1, C1 and N1; R1 (08:00Z) reviews D1; L1 is a learning.
 */
async function seedDstDay(runs: Record<'ema' | 'news' | 'trader' | 'reviewer', string>): Promise<void> {
  const until = { stale_after: '2026-03-08T09:00:00Z' };
  await importOne('E1', {
    type: 'ema_handoff',
    sourceRunId: runs.ema,
    timeframe: '5m',
    createdAt: '2026-03-08T06:00:00Z',
    content: 'E1: ETH 5m fast EMA below slow, bearish.',
    metadata: { handoff_version: 1, observations: { fast_ema: 2689.21, slow_ema: 2691.1 }, ...until },
  });
  await importOne('E2', {
    type: 'ema_handoff',
    sourceRunId: runs.ema,
    createdAt: '2026-03-08T07:45:00Z',
    content: 'E2: ETH 5m crossed up, bullish.',
    metadata: until,
  });
  await importOne('N1', {
    type: 'macro_note',
    sourceRunId: runs.news,
    createdAt: '2026-03-08T06:10:00Z',
    content: 'N1: CPI at 08:30 New York time.',
    metadata: { stale_after: '2026-03-08T06:20:00Z' },
  });
  await importOne('C1', {
    type: 'erratum',
    sourceRunId: runs.news,
    createdAt: '2026-03-08T06:15:00Z',
    content: 'C1: the E1 view used a stale candle.',
    metadata: until,
    links: [{ targetMemoryId: ids.E1, linkType: 'corrects' }],
  });
  await importOne('L1', {
    type: 'agent_learnings',
    scope: 'AGENT',
    instruments: [],
    sourceRunId: runs.reviewer,
    createdAt: '2026-03-07T12:00:00Z',
    content: 'L1: no new exposure before a scheduled release.',
  });
  await importOne('D1', {
    type: 'trading_decision',
    sourceRunId: runs.trader,
    createdAt: '2026-03-08T06:40:00Z',
    content: 'D1: no trade, event risk.',
    metadata: { valid_for_seconds: 900 },
    links: ['E1', 'C1', 'N1'].map((name) => ({ targetMemoryId: ids[name], linkType: 'considered' })),
  });
  await importOne('R1', {
    type: 'review',
    scope: 'AGENT',
    instruments: [],
    sourceRunId: runs.reviewer,
    createdAt: '2026-03-08T08:00:00Z',
    content: 'R1: standing aside was right.',
    links: [{ targetMemoryId: ids.D1, linkType: 'reviews' }],
  });
}

/** 55 recent records (more than a page), the newest linking E1: E1 is not on the list's first page. */
async function seedRecent(newsRun: string): Promise<void> {
  const now = Date.now();
  const { importMemories } = await h.ok<{ importMemories: { id: string }[] }>(IMPORT, {
    input: Array.from({ length: 55 }, (_, i) => ({
      agentId: fx.agentId,
      type: 'scan_note',
      scope: 'AGENT',
      sourceRunId: newsRun,
      createdAt: new Date(now - (i + 2) * MINUTE).toISOString(),
      content: `scan #${i}`,
    })),
  });
  await importOne('recent', {
    type: 'note',
    scope: 'AGENT',
    instruments: [],
    sourceRunId: newsRun,
    createdAt: new Date(now - MINUTE).toISOString(),
    content: 'Still supports the bearish EMA view of 2026-03-08.',
    links: [{ targetMemoryId: ids.E1, linkType: 'supports' }],
  });
  recentIds = [ids.recent!, ...importMemories.map((m) => m.id)];
}

async function newPage(viewport = { width: 1280, height: 800 }, colorScheme: 'light' | 'dark' = 'light') {
  const ctx = await browser.newContext({ timezoneId: ZONE, locale: 'en-US', viewport, colorScheme });
  contexts.push(ctx);
  const p = await ctx.newPage();
  p.on('pageerror', (error) => pageErrors.push(error.message));
  return p;
}

async function signIn(p: Page, token: string, query = ''): Promise<void> {
  await signInToList(p, `${base}/${query}#token=${token}`);
  await p.locator('article.record').first().waitFor();
}

const recordPage = (p: Page, id: string) => p.locator(`main.record-page[data-record-id="${id}"]`);
const shownIds = (p: Page) =>
  p.locator('article.record').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-id')!));
/** The memory ids listed in one part of a context (fresh, stubs, corrections, learnings). */
const partIds = (scope: ReturnType<Page['locator']>, part: string) =>
  scope
    .locator(`[data-part="${part}"] .ctx-item`)
    .evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-memory-id')!));

beforeAll(async () => {
  webRoot = await buildWebIntoTemp('memory-web-record-context-');
  await mkdir(outputDir, { recursive: true });
  h = await startEmbeddedHarness({ webRoot });
  const address = await h.server.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${address.port}`;
  // Producers and the instrument selection exist (enabled) from before the day the records are about.
  h.clock.set('2026-03-01T00:00:00Z');
  fx = await createAgentFixture(h, {
    name: 'dst-desk',
    instruments: ['BTC', 'ETH'],
    producers: {
      ema: ['ANALYSIS', '5m'],
      news: ['ANALYSIS', null],
      trader: ['TRADING', null],
      reviewer: ['REVIEW', null],
    },
  });
  const runs = {
    ema: (await startRun(h, fx.producers.ema!.id, '2026-03-01T00:00:00Z')).runId,
    news: (await startRun(h, fx.producers.news!.id)).runId,
    trader: (await startRun(h, fx.producers.trader!.id)).runId,
    reviewer: (await startRun(h, fx.producers.reviewer!.id)).runId,
  };
  other = await createAgentFixture(h, { name: 'other-desk', producers: { scanner: ['ANALYSIS', null] } });
  h.clock.real();
  await seedDstDay(runs);
  await seedRecent(runs.news);
  const otherRun = await startRun(h, other.producers.scanner!.id);
  otherRecordId = (await writeOk(h, otherRun.token, { type: 'scan_note', scope: 'AGENT', content: 'other' }))
    .id as string;
  browser = await launchBrowser();
});

afterAll(async () => {
  for (const ctx of contexts) await ctx.close();
  await browser?.close();
  await h?.close();
  if (webRoot) await rm(webRoot, { recursive: true, force: true });
});

describe('B6, B13: every id opens its record', () => {
  it('B6: a link to an off-page record opens its page: content, metadata, provenance, links both ways, corrections marked', async () => {
    const p = await newPage();
    await signIn(p, fx.operatorToken);
    await expect.poll(() => shownIds(p)).toEqual(recentIds.slice(0, 50));
    expect(recentIds).not.toContain(ids.E1);

    // Read a little way into the list first: the list keeps its place while a record is open.
    await p.evaluate(() => window.scrollTo(0, 150));
    await p.locator(`article[data-id="${ids.recent}"] a[data-memory-link="${ids.E1}"]`).click();
    const page = recordPage(p, ids.E1!);
    await page.waitFor();
    expect(p.url()).toBe(`${base}/#/memory/${ids.E1}`);
    expect(await p.locator('.layout').isVisible()).toBe(false);
    expect(await p.evaluate(() => window.scrollY)).toBe(0);
    // Focus lands on the record's heading; neither tab is the current view.
    expect(await p.evaluate(() => document.activeElement?.id)).toBe('record-title');
    expect(await p.locator('nav[aria-label="Views"] [aria-current="page"]').count()).toBe(0);
    expect(await p.title()).toBe('ema_handoff · dst-desk');

    expect(await page.locator('h2').textContent()).toBe('ema_handoff');
    expect(await page.locator('[data-freshness]').textContent()).toBe('STALE');
    expect(await page.locator('[data-section="content"]').textContent()).toContain('E1: ETH 5m fast EMA');
    expect(await page.locator('[data-section="metadata"] [data-handoff]').textContent()).toContain(
      'fast_ema',
    );
    const about = page.locator('[data-section="about"]');
    expect(await about.locator('.producer').textContent()).toBe('ema');
    expect(await about.locator('.kind').textContent()).toBe('ANALYSIS');
    expect(await about.textContent()).toContain('every 5m');
    // Created 06:00Z is 01:00 EST; the expiry, 09:00Z, is 05:00 EDT — the same day, both sides of the change.
    const times = await about.locator('time').allTextContents();
    expect(times[0]).toMatch(/Mar 8, 2026, 01:00:00 AM EST/);
    expect(times[1]).toMatch(/Mar 8, 2026, 05:00:00 AM EDT/);

    // Links in: its correction apart and marked, then the rest newest first.
    const correctedBy = page.locator('[data-section="corrected-by"] .rel');
    expect(await correctedBy.count()).toBe(1);
    expect(await correctedBy.locator('.badge-correction').textContent()).toBe('Correction');
    expect(await correctedBy.locator('[data-memory-link]').getAttribute('data-memory-link')).toBe(ids.C1);
    const linkedFrom = page.locator('[data-section="links-in"] [data-memory-link]');
    expect(await linkedFrom.evaluateAll((n) => n.map((a) => a.getAttribute('data-memory-link')))).toEqual([
      ids.recent,
      ids.D1,
    ]);
    expect(await page.locator('[data-section="links-out"]').textContent()).toContain(
      'links to no other record',
    );
    await p.screenshot({ path: path.join(outputDir, 'record-page-e1.png'), fullPage: true });

    // The correction's own page marks its link out as a correction; Back and Forward walk the pages.
    await correctedBy.locator('a').click();
    await recordPage(p, ids.C1!).waitFor();
    const out = recordPage(p, ids.C1!).locator('[data-section="links-out"] .rel');
    expect(await out.getAttribute('class')).toContain('rel-correction');
    expect(await out.textContent()).toContain('Correction of');
    await p.goBack();
    await page.waitFor();
    await p.goBack();
    await p.locator('.layout').waitFor();
    expect(p.url()).toBe(`${base}/#/`);
    await expect.poll(() => shownIds(p)).toEqual(recentIds.slice(0, 50));
    await expect.poll(() => p.evaluate(() => window.scrollY)).toBe(150);
    await p.goForward();
    await page.waitFor();
    // The Memories tab (a new history entry, no restoration by the browser) also returns to that place.
    await p.getByRole('link', { name: 'Memories' }).click();
    await p.locator('.layout').waitFor();
    await expect.poll(() => p.evaluate(() => window.scrollY)).toBe(150);
    expect(pageErrors).toEqual([]);
  });

  it('S1: an unknown id, another agent’s record and a malformed id all read "not found or not visible"', async () => {
    const p = await newPage();
    await signIn(p, fx.operatorToken);
    for (const id of [randomUUID(), otherRecordId, 'not-a-uuid']) {
      await p.goto(`${base}/#/memory/${id}`);
      const missing = p.locator(`[data-record-missing="${id}"]`);
      await missing.waitFor();
      expect(await missing.locator('h2').textContent()).toBe('Record not found or not visible to this token');
    }
    await p.getByRole('link', { name: 'Back to Memories' }).click();
    await p.locator('.layout').waitFor();
    expect(pageErrors).toEqual([]);
  });

  it('T3: a decision’s page shows its audit: every record it considered, and the context as Trading saw it then', async () => {
    const p = await newPage();
    await signIn(p, fx.operatorToken);
    await p.goto(`${base}/#/memory/${ids.D1}`);
    const page = recordPage(p, ids.D1!);
    await page.locator('[data-section="audit"]').waitFor();
    const audit = page.locator('[data-section="audit"]');
    const considered = audit.locator('[data-part="considered"] > li');
    expect(await considered.evaluateAll((n) => n.map((li) => li.getAttribute('data-memory-id')))).toEqual([
      ids.E1,
      ids.C1,
      ids.N1,
    ]);
    expect(await considered.first().textContent()).toContain('considered');
    // As of 06:40Z (01:40 EST): E1 fresh with its research, N1 expired (a stub), C1 a fresh correction,
    // L1 the learning; E2 (07:45Z) did not exist yet.
    const context = audit.locator('.ctx[data-instrument="ETH"]');
    expect(await context.getAttribute('data-at')).toBe('2026-03-08T06:40:00.000Z');
    expect(await audit.locator('.audit-context > h4').textContent()).toContain('01:40:00 AM EST');
    expect(await partIds(context, 'fresh')).toEqual([ids.E1]);
    expect(await context.locator('[data-part="fresh"] .record-content').textContent()).toContain('E1: ETH');
    expect(await partIds(context, 'stubs')).toEqual([ids.N1]);
    expect(await context.locator('[data-part="stubs"] .ctx-research').count()).toBe(0);
    expect(await partIds(context, 'corrections')).toEqual([ids.C1]);
    expect(await context.locator('[data-part="corrections"] .badge[data-status]').textContent()).toBe(
      'FRESH',
    );
    expect(await partIds(context, 'learnings')).toEqual([ids.L1]);
    // What links to the decision: the review.
    expect(
      await page.locator('[data-section="links-in"] [data-memory-link]').getAttribute('data-memory-link'),
    ).toBe(ids.R1);
    await p.screenshot({ path: path.join(outputDir, 'record-page-decision.png'), fullPage: true });
    // A reload opens the same page, named in the browser tab.
    await p.reload();
    await audit.locator('.ctx').waitFor();
    expect(await p.title()).toBe('trading_decision · dst-desk');

    // Ids inside the audit's context open their records too.
    await context.locator(`[data-part="corrections"] .ctx-corrects a[data-memory-link="${ids.E1}"]`).click();
    await recordPage(p, ids.E1!).waitFor();
    expect(pageErrors).toEqual([]);
  });
});

describe('C9: the Context tab', () => {
  it('C9: in America/New_York the instant picker reads local time across the spring-forward and fall-back days', async () => {
    const p = await newPage();
    await signIn(p, fx.operatorToken);
    await p.getByRole('link', { name: 'Context' }).click();
    // The agent's first instrument, then ETH; the tab is the current view.
    await expect.poll(() => p.url()).toBe(`${base}/#/context?instrument=BTC`);
    expect(await p.locator('[data-view="context"]').getAttribute('aria-current')).toBe('page');
    await p.getByLabel('Instrument').selectOption('ETH');
    await expect.poll(() => p.url()).toBe(`${base}/#/context?instrument=ETH`);
    const at = p.locator('.ctx-at');
    await expect.poll(() => at.getAttribute('data-now')).toBe('');
    expect(Math.abs(Date.parse((await at.getAttribute('data-at'))!) - Date.now())).toBeLessThan(MINUTE);
    expect(await p.getByRole('button', { name: 'Now' }).isDisabled()).toBe(true);

    const showAt = async (local: string) => {
      await p.getByLabel(`As of (${ZONE})`).fill(local);
      await p.getByRole('button', { name: 'Show' }).click();
    };
    const shownAt = async (iso: string) => {
      await expect.poll(() => p.url()).toBe(`${base}/#/context?instrument=ETH&at=${encodeURIComponent(iso)}`);
      await expect.poll(() => at.getAttribute('data-at')).toBe(iso);
    };
    const ctx = p.locator('.context-tab .ctx');

    // 01:30 on 2026-03-08 is EST (UTC-5): 06:30Z. E1 is the kept EMA view, N1 has expired.
    await showAt('2026-03-08T01:30');
    await shownAt('2026-03-08T06:30:00.000Z');
    expect(await at.locator('time').textContent()).toMatch(/01:30:00 AM EST/);
    await expect.poll(() => partIds(ctx, 'fresh')).toEqual([ids.E1]);
    expect(await partIds(ctx, 'stubs')).toEqual([ids.N1]);
    expect(await partIds(ctx, 'corrections')).toEqual([ids.C1]);
    expect(await partIds(ctx, 'learnings')).toEqual([ids.L1]);
    await p.screenshot({ path: path.join(outputDir, 'context-tab-dst.png'), fullPage: true });

    // 03:30 the same day is EDT (UTC-4): 07:30Z, still before E2 (07:45Z). Read as EST it would be
    // 08:30Z, after E2.
    await showAt('2026-03-08T03:30');
    await shownAt('2026-03-08T07:30:00.000Z');
    expect(await at.locator('time').textContent()).toMatch(/03:30:00 AM EDT/);
    await expect.poll(() => partIds(ctx, 'fresh')).toEqual([ids.E1]);
    // A reload opens the same instant, named in the browser tab.
    await p.reload();
    await shownAt('2026-03-08T07:30:00.000Z');
    expect(await p.title()).toBe('Context · ETH · dst-desk');

    // 02:30 does not occur that day: the page says so and uses 03:30 EDT.
    await p.getByLabel(`As of (${ZONE})`).fill('2026-03-08T02:30');
    expect(await p.locator('[data-skipped-time]').textContent()).toContain('does not occur that day');
    await showAt('2026-03-08T02:30');
    await shownAt('2026-03-08T07:30:00.000Z');

    // 01:30 on 2026-11-01 occurs twice: the first is EDT (05:30Z), the second EST (06:30Z).
    await p.getByLabel(`As of (${ZONE})`).fill('2026-11-01T01:30');
    await p.getByRole('radio', { name: /^Second:.*EST/ }).check();
    await p.getByRole('button', { name: 'Show' }).click();
    await shownAt('2026-11-01T06:30:00.000Z');
    await p.getByRole('radio', { name: /^First:.*EDT/ }).check();
    await p.getByRole('button', { name: 'Show' }).click();
    await shownAt('2026-11-01T05:30:00.000Z');

    // Back returns to the previous instant, with the field and the choice as they were.
    await p.goBack();
    await shownAt('2026-11-01T06:30:00.000Z');
    // (Chromium shows whole minutes without their seconds.)
    expect(await p.getByLabel(`As of (${ZONE})`).inputValue()).toMatch(/^2026-11-01T01:30(:00)?$/);
    expect(await p.getByRole('radio', { name: /^Second:/ }).isChecked()).toBe(true);
    await p.goBack();
    await shownAt('2026-03-08T07:30:00.000Z');
    expect(await p.getByLabel(`As of (${ZONE})`).inputValue()).toMatch(/^2026-03-08T03:30(:00)?$/);

    // An id in the context opens its record; Back returns to the same context.
    await ctx.locator(`[data-part="fresh"] a[data-memory-link="${ids.E1}"]`).click();
    await recordPage(p, ids.E1!).waitFor();
    await p.goBack();
    await shownAt('2026-03-08T07:30:00.000Z');

    await p.getByRole('button', { name: 'Now' }).click();
    await expect.poll(() => p.url()).toBe(`${base}/#/context?instrument=ETH`);
    await expect.poll(() => at.getAttribute('data-now')).toBe('');
    await p.getByRole('link', { name: 'Memories' }).click();
    await p.locator('.layout').waitFor();
    expect(await p.locator('[data-view="list"]').getAttribute('aria-current')).toBe('page');
    expect(pageErrors).toEqual([]);
  });

  it('the admin keeps ?agent= in the address on every view; a record of another agent says whose it is', async () => {
    const p = await newPage();
    await signIn(p, ADMIN_TOKEN, `?agent=${fx.agentId}`);
    await p.getByRole('link', { name: 'Context' }).click();
    await expect.poll(() => p.url()).toBe(`${base}/?agent=${fx.agentId}#/context?instrument=BTC`);
    await p.locator('.ctx-at').waitFor();

    // Switching agents keeps the tab.
    await p.locator('.agent-switch select').selectOption(other.agentId);
    await expect.poll(() => p.url()).toBe(`${base}/?agent=${other.agentId}#/context?instrument=BTC`);
    await p.locator('.ctx-at').waitFor();

    await p.goto(`${base}/?agent=${fx.agentId}#/memory/${otherRecordId}`);
    const missing = p.locator(`[data-record-missing="${otherRecordId}"]`);
    await missing.waitFor();
    expect(await missing.locator('h2').textContent()).toBe('This record belongs to another agent');
    await missing.getByRole('link', { name: 'Open it as other-desk' }).click();
    await recordPage(p, otherRecordId).waitFor();
    expect(p.url()).toBe(`${base}/?agent=${other.agentId}#/memory/${otherRecordId}`);
    expect(pageErrors).toEqual([]);
  });
});

describe('docs/memories-tab.md pictures', () => {
  it('demo data: the record page of a decision and the Context tab, 1280×800 (also dark, and at phone width)', async () => {
    const demo = await startEmbeddedHarness({ webRoot });
    try {
      const seed = (await seedDemo(demo.db, new Date()))!;
      const address = await demo.server.listen(0, '127.0.0.1');
      const demoBase = `http://127.0.0.1:${address.port}`;
      const { memories } = await demo.ok(
        `query($a: UUID!) { memories(agentId: $a, filter: { types: ["trading_decision"] }) {
          edges { node { id instruments } } } }`,
        { a: seed.agentId },
      );
      const decision = memories.edges.find((edge: any) => edge.node.instruments[0] === 'ETH').node.id;
      const shots: [string, string, string][] = [
        ['record-page.png', `#/memory/${decision}`, `main.record-page [data-section="audit"]`],
        ['context-tab.png', '#/context?instrument=ETH', '.context-tab .ctx'],
      ];
      const passes = [
        ['light', '', 1280, 800],
        ['dark', '-dark', 1280, 800],
        ['light', '-phone', 390, 844],
      ] as const;
      for (const [scheme, suffix, width, height] of passes) {
        const p = await newPage({ width, height }, scheme);
        await signInToList(p, `${demoBase}/#token=${seed.operatorToken}`);
        await p.locator('article.record').first().waitFor();
        for (const [name, hash, ready] of shots) {
          if (suffix === '-dark' && name !== 'record-page.png') continue;
          await p.goto(`${demoBase}/${hash}`);
          await p.locator(ready).waitFor();
          await p.evaluate(() => window.scrollTo(0, 0));
          // Nothing wider than the screen, a phone's included.
          expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
          const file = path.join(outputDir, name.replace('.png', `${suffix}.png`));
          await p.screenshot({ path: file });
          if (UPDATE_DOCS && !suffix) await copyFile(file, path.join(repoRoot, 'docs', name));
        }
      }
      expect(pageErrors).toEqual([]);
    } finally {
      await demo.close();
    }
    // A whole scenario, not one step: its own service, the demo seed, three browser pages and five
    // pictures. It took 19–28 s of the default 30 s with the browser suites beside it on two cores.
  }, 120_000);
});

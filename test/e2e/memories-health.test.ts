// The desk's view (B8, B9) in a real headless Chromium against a real server with the demo data: the
// Health tab (board, producers, timeline) opened by default while a producer is late, in light and dark
// and at phone width, a decision marker reached from the keyboard, the board's own flip to STALE under a
// fake clock with live refreshes at most every 30 s, the header badge on another tab, the admin's fleet
// table and the record page's B10 audit flags. Writes docs/health-*.png with DOCS_SCREENSHOTS=1.
import { copyFile, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo, type DemoSeed } from '../../src/demo/seed.js';
import { healthBadgeText, notInContextText, type ProducerHealthStatus } from '../../src/web/health.js';
import { buildWebIntoTemp, launchBrowser, repoRoot, signInToList } from '../support/browser.js';
import { ADMIN_TOKEN, startEmbeddedHarness, startRun, writeOk, type Harness } from '../support/harness.js';

const outputDir = path.join(repoRoot, 'test-output');
const ZONE = 'America/New_York';
const MINUTE = 60_000;
/** Set to 1 to refresh docs/memories-tab.md's Health pictures (docs/health-*.png). */
const UPDATE_DOCS = process.env.DOCS_SCREENSHOTS === '1';

let h: Harness;
let webRoot: string;
let base: string;
let browser: Browser;
let seed: DemoSeed;
let producers: Record<string, string>;
const contexts: BrowserContext[] = [];
const pageErrors: string[] = [];

interface ApiHealth {
  producerHealth: { producer: { name: string }; status: ProducerHealthStatus }[];
  freshnessBoard: {
    instruments: {
      instrument: string;
      groups: { producer: { name: string }; type: string; state: string; expiresAt: string | null }[];
      latestDecision: { id: string } | null;
      decisionFreshEvidence: number | null;
      decisionStaleEvidence: number | null;
    }[];
  };
}

const HEALTH = `query($a: UUID!) {
  producerHealth(agentId: $a) { producer { name } status }
  freshnessBoard(agentId: $a) { instruments { instrument
    groups { producer { name } type state expiresAt }
    latestDecision { id } decisionFreshEvidence decisionStaleEvidence } }
}`;

const TIMELINE = `query($a: UUID!, $i: String!, $from: DateTime!, $to: DateTime!) {
  freshnessTimeline(agentId: $a, instrument: $i, from: $from, to: $to) {
    lanes { producer { name } type intervals { memoryId } } decisions { id } }
}`;

const apiHealth = () => h.ok<ApiHealth>(HEALTH, { a: seed.agentId });

/**
 * A scheduled producer's status can change at a cycle boundary between the API's answer and the page's:
 * the page must show the answer from before it loaded or the one from after.
 */
function oneOf<T>(shown: T, before: T, after: T): void {
  expect([JSON.stringify(before), JSON.stringify(after)]).toContain(JSON.stringify(shown));
}

async function newPage(viewport = { width: 1280, height: 900 }, colorScheme: 'light' | 'dark' = 'light') {
  const ctx = await browser.newContext({ timezoneId: ZONE, locale: 'en-US', viewport, colorScheme });
  contexts.push(ctx);
  const p = await ctx.newPage();
  p.on('pageerror', (error) => pageErrors.push(error.message));
  return p;
}

/** Signs in with the demo's link at a bare address: the Health tab opens since producers are late. */
async function openHealth(p: Page): Promise<void> {
  await p.goto(`${base}/#token=${seed.operatorToken}`);
  await p.locator('main.health-tab [data-section="timeline"] svg').waitFor();
}

/** The variables of every request whose query names `field`, from now on. */
function requestsNaming(p: Page, field: string): unknown[] {
  const sent: unknown[] = [];
  p.on('request', (request) => {
    const body = request.postData();
    if (request.url().endsWith('/graphql') && body?.includes(`${field}(`)) {
      sent.push((JSON.parse(body) as { variables?: unknown }).variables);
    }
  });
  return sent;
}

/** Writes one record of `type` for BTC through a new run of the unscheduled news desk (valid 30 min, X3). */
async function writeProbe(type: string): Promise<{ id: string; expiresAt: string }> {
  const run = await startRun(h, producers['macro-news-desk']!);
  const memory = await writeOk(h, run.token, {
    type,
    scope: 'INSTRUMENTS',
    instruments: ['BTC'],
    content: `${type}: written by the Health tab's test.`,
  });
  return { id: memory.id as string, expiresAt: memory.expiresAt as string };
}

beforeAll(async () => {
  webRoot = await buildWebIntoTemp('memory-web-health-');
  h = await startEmbeddedHarness({ webRoot });
  seed = (await seedDemo(h.db, new Date()))!;
  const { agent } = await h.ok<{ agent: { producers: { id: string; name: string }[] } }>(
    'query($a: UUID!) { agent(id: $a) { producers { id name } } }',
    { a: seed.agentId },
  );
  producers = Object.fromEntries(agent.producers.map((p) => [p.name, p.id]));
  const address = await h.server.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${address.port}`;
  browser = await launchBrowser();
  await mkdir(outputDir, { recursive: true });
});

afterAll(async () => {
  for (const ctx of contexts) await ctx.close();
  await browser?.close();
  await h?.close();
  if (webRoot) await rm(webRoot, { recursive: true, force: true });
});

describe('B8, B9: the Health tab', () => {
  it('B8/B9: a bare address opens Health while a producer is late; board, producers and timeline are what the API answers', async () => {
    const api = await apiHealth();
    // The demo has late producers (B8: it makes the tab meaningful).
    expect(api.producerHealth.some((row) => ['LATE', 'MISSING'].includes(row.status))).toBe(true);
    const p = await newPage();
    await openHealth(p);
    expect(new URL(p.url()).hash).toBe('#/health');

    const rows = p.locator('[data-section="producers"] tbody tr');
    const statuses = (answer: ApiHealth) =>
      answer.producerHealth.map((row) => [row.producer.name, row.status]);
    oneOf(
      await rows.evaluateAll((trs) => trs.map((tr) => [tr.dataset.producer, tr.dataset.status])),
      statuses(api),
      statuses(await apiHealth()),
    );

    const soon = Date.now() + 2 * MINUTE;
    for (const board of api.freshnessBoard.instruments) {
      const card = p.locator(`.board-card[data-instrument="${board.instrument}"]`);
      const shown = await card
        .locator('tbody tr')
        .evaluateAll((trs) => trs.map((tr) => [tr.dataset.group, tr.dataset.state]));
      expect(shown.map(([group]) => group)).toEqual(board.groups.map((g) => `${g.producer.name}:${g.type}`));
      board.groups.forEach((group, i) => {
        // A group that expires while the test runs may read STALE on the page already.
        if (group.expiresAt === null || Date.parse(group.expiresAt) > soon)
          expect(shown[i]![1]).toBe(group.state);
      });
      if (board.latestDecision) {
        const decision = card.locator('.board-decision');
        expect(await decision.getAttribute('data-decision')).toBe(board.latestDecision.id);
        expect(await decision.locator('[data-evidence]').getAttribute('data-evidence')).toBe(
          `${board.decisionFreshEvidence ?? 0}/${board.decisionStaleEvidence ?? 0}`,
        );
      }
    }

    // The timeline of the board's first instrument over the last 24 h: one lane per API lane.
    const instrument = api.freshnessBoard.instruments[0]!.instrument;
    const to = new Date();
    const { freshnessTimeline } = await h.ok<{
      freshnessTimeline: {
        lanes: { producer: { name: string }; type: string }[];
        decisions: { id: string }[];
      };
    }>(TIMELINE, { a: seed.agentId, i: instrument, from: new Date(to.getTime() - 24 * 60 * MINUTE), to });
    const svg = p.locator('[data-section="timeline"] svg');
    expect(
      await svg.locator('.tl-lane').evaluateAll((gs) => gs.map((g) => g.getAttribute('data-lane'))),
    ).toEqual(freshnessTimeline.lanes.map((lane) => `${lane.producer.name} · ${lane.type}`));
    const markers = svg.locator('a.tl-marker');
    expect(await markers.evaluateAll((as) => as.map((a) => a.getAttribute('href')))).toEqual(
      freshnessTimeline.decisions.map((d) => `#/memory/${d.id}`),
    );
    // Text alternatives: every lane says what it shows, every marker is a labelled link.
    for (const label of await svg.locator('.tl-lane').evaluateAll((gs) => gs.map((g) => g.ariaLabel))) {
      expect(label).toMatch(/: fresh .* of 1 d, \d+ fresh intervals?, \d+ gaps?/);
    }
    for (const label of await markers.evaluateAll((as) => as.map((a) => a.ariaLabel))) {
      expect(label).toMatch(/^Decision at [A-Z][a-z]{2} \d{1,2}, \d{4}, \d{2}:\d{2}:\d{2} [AP]M E[SD]T: /);
    }
    // Ticks are local (America/New_York) hours.
    const ticks = await svg.locator('.tl-axis-label').allTextContents();
    expect(ticks.length).toBeGreaterThanOrEqual(4);
    for (const tick of ticks) expect(tick).toMatch(/^(\d{2}:00 [AP]M|[A-Z][a-z]{2} \d{1,2})$/);

    // 6 h and 7 d spans are in the address and ask for that span.
    const asked = requestsNaming(p, 'freshnessTimeline');
    await p.getByRole('radio', { name: 'Last 7 d' }).check();
    await expect.poll(() => new URL(p.url()).hash).toBe('#/health?instrument=' + instrument + '&span=7d');
    await expect.poll(() => asked.length).toBeGreaterThan(0);
    const { from, to: until } = asked.at(-1) as { from: string; to: string };
    expect(Date.parse(until) - Date.parse(from)).toBe(7 * 24 * 60 * MINUTE);
    await p.screenshot({ path: path.join(outputDir, 'health-light.png'), fullPage: true });
    expect(pageErrors).toEqual([]);
  });

  it('B8, B9: dark mode and phone width: readable colours, nothing wider than the screen', async () => {
    const p = await newPage({ width: 390, height: 844 }, 'dark');
    await openHealth(p);
    expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    const svgWidth = await p.locator('[data-section="timeline"] svg').evaluate((svg) => svg.clientWidth);
    expect(svgWidth).toBeGreaterThan(250);
    expect(svgWidth).toBeLessThanOrEqual(390);
    // Light text on a dark page, the SVG's labels included.
    const luminance = (css: string) => {
      const [r, g, b] = css.match(/\d+(\.\d+)?/g)!.map(Number) as [number, number, number];
      return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
    };
    const body = await p.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const label = await p
      .locator('.tl-label')
      .first()
      .evaluate((t) => getComputedStyle(t).fill);
    const cell = await p
      .locator('.board-table tbody th')
      .first()
      .evaluate((t) => getComputedStyle(t).color);
    expect(luminance(body)).toBeLessThan(0.2);
    expect(luminance(label)).toBeGreaterThan(0.7);
    expect(luminance(cell)).toBeGreaterThan(0.7);
    // The producer table scrolls sideways inside its card, as a focusable region.
    const producers = p.locator('[data-section="producers"] .table-scroll');
    expect(await producers.getAttribute('data-overflowing')).toBe('true');
    expect(await producers.getAttribute('tabindex')).toBe('0');
    await p.screenshot({ path: path.join(outputDir, 'health-dark-phone.png'), fullPage: true });
    expect(pageErrors).toEqual([]);
  });

  it('B8, B9: a decision marker is reached with Tab alone and opens the decision with its audit (T3)', async () => {
    const p = await newPage();
    await openHealth(p);
    await p.locator('#timeline-title').evaluate((h3) => {
      h3.setAttribute('tabindex', '-1');
      (h3 as HTMLElement).focus();
    });
    let reached: string | null = null;
    for (let presses = 0; presses < 20 && !reached; presses++) {
      await p.keyboard.press('Tab');
      reached = await p.evaluate(() => document.activeElement?.getAttribute('data-decision') ?? null);
    }
    expect(reached).not.toBeNull();
    // The focused marker shows it: a visible outline.
    expect(await p.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).toBe('solid');
    await p.keyboard.press('Enter');
    await expect.poll(() => new URL(p.url()).hash).toBe(`#/memory/${reached}`);
    await p.locator(`main.record-page[data-record-id="${reached}"] [data-section="audit"]`).waitFor();
    expect(pageErrors).toEqual([]);
  });

  it('B9: live: a new record refreshes the board after the 30 s floor; FRESH turns STALE at expiresAt with no request', async () => {
    const p = await newPage();
    await p.clock.install();
    const flip = await writeProbe('flip_probe');
    await openHealth(p);
    const row = (type: string) =>
      p.locator(`.board-card[data-instrument="BTC"] tr[data-group="macro-news-desk:${type}"]`);
    await expect.poll(() => row('flip_probe').getAttribute('data-state')).toBe('FRESH');
    expect(await row('flip_probe').locator('.board-detail').textContent()).toMatch(
      /^(29|30) min left · until /,
    );

    const boards = requestsNaming(p, 'freshnessBoard');
    // memoryAdded reaches the page at once; the refresh waits for the 30 s floor after the first load.
    await writeProbe('live_probe');
    await p.waitForTimeout(1500);
    expect(await row('live_probe').count()).toBe(0);
    await p.clock.fastForward('00:31');
    await expect.poll(() => row('live_probe').count(), { timeout: 10_000 }).toBe(1);
    expect(boards).toHaveLength(1);

    // The flip: the page's clock passes the known expiresAt; nothing is asked.
    const left = Date.parse(flip.expiresAt) - (await p.evaluate(() => Date.now()));
    await p.clock.fastForward(left + 1000);
    await expect.poll(() => row('flip_probe').getAttribute('data-state')).toBe('STALE');
    expect(await row('flip_probe').locator('.badge').textContent()).toBe('STALE');
    expect(await row('flip_probe').locator('.board-detail').textContent()).toMatch(/^since .* · 0 min ago$/);
    expect(boards).toHaveLength(1);

    // runChanged: a run that starts (and writes nothing) refreshes the producer table too.
    const review = p.locator('[data-section="producers"] tr[data-producer="daily-review"]');
    expect(await review.textContent()).not.toContain('running');
    const today = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000).toISOString();
    await startRun(h, producers['daily-review']!, today);
    await expect.poll(() => review.textContent(), { timeout: 10_000 }).toContain('running');
    expect(boards).toHaveLength(2);
    expect(pageErrors).toEqual([]);
  });

  it('B8, B9: the badge names the late producers on every tab and opens Health; an address naming the list stays there', async () => {
    const api = await apiHealth();
    const expected = healthBadgeText(api.producerHealth.map((row) => row.status));
    expect(expected).not.toBeNull();
    const p = await newPage();
    await signInToList(p, `${base}/#token=${seed.operatorToken}`);
    const badge = p.locator('.topbar [data-health-badge]');
    await badge.waitFor();
    const shown = await badge.textContent();
    oneOf(shown, expected, healthBadgeText((await apiHealth()).producerHealth.map((row) => row.status)));
    // The list was named: no jump to Health once health arrived.
    await p.locator('article.record').first().waitFor();
    expect(new URL(p.url()).hash).toBe('#/');
    await p.locator('.view-tab[data-view="context"]').click();
    await p.locator('.context-tab .ctx-panel').waitFor();
    expect(await badge.textContent()).toBe(shown);
    await badge.click();
    await p.locator('main.health-tab').waitFor();
    expect(new URL(p.url()).hash).toBe('#/health');
    expect(await p.locator('.view-tab[data-view="health"]').getAttribute('aria-current')).toBe('page');
    expect(pageErrors).toEqual([]);
  });
});

describe('B8, B9: the admin and the audit', () => {
  it('B8: the admin picker is a fleet table: instruments, producers healthy / late / missing, last decision, records in 24 h', async () => {
    const api = await apiHealth();
    const count = (status: ProducerHealthStatus) =>
      api.producerHealth.filter((row) => row.status === status).length;
    const { memoryTypes } = await h.ok<{ memoryTypes: { count: number }[] }>(
      'query($a: UUID!) { memoryTypes(agentId: $a, window: { rolling: LAST_24H, timeZone: "UTC" }) { count } }',
      { a: seed.agentId },
    );
    const { memories } = await h.ok<{ memories: { edges: { node: { createdAt: string } }[] } }>(
      'query($a: UUID!) { memories(agentId: $a, filter: { types: ["trading_decision"] }, first: 1) { edges { node { createdAt } } } }',
      { a: seed.agentId },
    );
    const p = await newPage();
    await p.goto(`${base}/#token=${ADMIN_TOKEN}`);
    const row = p.locator(`table.fleet-table tr[data-agent="${seed.agentName}"]`);
    await row.locator('[data-cell="records"]').waitFor();
    expect(await row.locator('[data-cell="instruments"]').textContent()).toBe('BTC, ETH, SOL');
    const after = await apiHealth();
    const countAfter = (status: ProducerHealthStatus) =>
      after.producerHealth.filter((r) => r.status === status).length;
    oneOf(
      await row.locator('[data-cell="producers"]').textContent(),
      `${count('HEALTHY')} / ${count('LATE')} / ${count('MISSING')}`,
      `${countAfter('HEALTHY')} / ${countAfter('LATE')} / ${countAfter('MISSING')}`,
    );
    expect(await row.locator('[data-cell="producers"]').getAttribute('class')).toBe('fleet-late');
    expect(await row.locator('[data-cell="decision"] time').getAttribute('datetime')).toBe(
      memories.edges[0]!.node.createdAt,
    );
    expect(await row.locator('[data-cell="records"]').textContent()).toBe(
      String(memoryTypes.reduce((sum, type) => sum + type.count, 0)),
    );
    await row.locator('a.agent-link').click();
    await expect.poll(() => new URL(p.url()).searchParams.get('agent')).toBe(seed.agentId);
    await p.locator('main.health-tab').waitFor();
    await p.screenshot({ path: path.join(outputDir, 'health-fleet.png') });
    expect(pageErrors).toEqual([]);
  });

  it("B10: a decision's page flags each considered record: fresh or stale at the decision and now, and why it was not in context", async () => {
    const { memories } = await h.ok<{
      memories: { edges: { node: { id: string; instruments: string[] } }[] };
    }>(
      'query($a: UUID!) { memories(agentId: $a, filter: { types: ["trading_decision"] }) { edges { node { id instruments } } } }',
      { a: seed.agentId },
    );
    const decision = memories.edges.find((edge) => edge.node.instruments[0] === 'ETH')!.node.id;
    const { decisionAudit } = await h.ok<{
      decisionAudit: {
        considered: {
          memoryId: string;
          freshnessAtDecision: string;
          inContextAtDecision: boolean;
          notInContextReason: string | null;
        }[];
        linked: { id: string; freshness: string }[];
      };
    }>(
      `query($d: UUID!) { decisionAudit(decisionId: $d) { linked { id freshness }
        considered { memoryId freshnessAtDecision inContextAtDecision notInContextReason } } }`,
      { d: decision },
    );
    // The demo's ETH decision considered fresh records and a stale one (B10: a meaningful audit).
    const atDecision = decisionAudit.considered.map((entry) => entry.freshnessAtDecision);
    expect(atDecision).toContain('FRESH');
    expect(atDecision).toContain('STALE');
    const p = await newPage();
    await signInToList(p, `${base}/#token=${seed.operatorToken}`);
    await p.goto(`${base}/#/memory/${decision}`);
    const considered = p.locator('[data-part="considered"] li');
    await considered.first().waitFor();
    const now = new Map(decisionAudit.linked.map((m) => [m.id, m.freshness]));
    for (const entry of decisionAudit.considered) {
      const flags = p.locator(`[data-part="considered"] li[data-memory-id="${entry.memoryId}"] .audit-flags`);
      expect(await flags.getAttribute('data-at-decision')).toBe(entry.freshnessAtDecision);
      expect(await flags.getAttribute('data-now')).toBe(now.get(entry.memoryId));
      expect(await flags.getAttribute('data-in-context')).toBe(String(entry.inContextAtDecision));
      const text = await flags.textContent();
      expect(text).toContain(`${entry.freshnessAtDecision} at decision`);
      expect(text).toContain(
        entry.inContextAtDecision ? 'in context' : notInContextText(entry.notInContextReason),
      );
      if (!entry.inContextAtDecision) {
        expect(await flags.locator('[data-reason]').getAttribute('data-reason')).toBe(
          entry.notInContextReason,
        );
      }
    }
    expect(decisionAudit.considered.some((entry) => !entry.inContextAtDecision)).toBe(true);
    expect(pageErrors).toEqual([]);
  });
});

describe('docs/memories-tab.md Health pictures', () => {
  it('demo data: the board, the timeline and the producer table, 1280 px wide', async () => {
    const p = await newPage({ width: 1280, height: 800 });
    await openHealth(p);
    const shots: [string, string][] = [
      ['health-board.png', '[data-section="board"]'],
      ['health-timeline.png', '[data-section="timeline"]'],
      ['health-producers.png', '[data-section="producers"]'],
    ];
    // The sticky top bar would cover a section's top edge in an element screenshot.
    await p.evaluate(() =>
      document.querySelector<HTMLElement>('.topbar')!.style.setProperty('position', 'static'),
    );
    for (const [name, selector] of shots) {
      // The demo's records span two hours: its timeline reads best over 6 h, for ETH (news and a correction).
      if (name === 'health-timeline.png') {
        await p.getByLabel('Instrument').selectOption('ETH');
        await p.getByRole('radio', { name: 'Last 6 h' }).check();
        await p.locator('[data-timeline="ETH"]:not([aria-busy="true"]) svg').waitFor();
      }
      const file = path.join(outputDir, name);
      await p.locator(selector).screenshot({ path: file });
      if (UPDATE_DOCS) await copyFile(file, path.join(repoRoot, 'docs', name));
    }
    expect(pageErrors).toEqual([]);
  });
});

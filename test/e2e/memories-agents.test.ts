// The Memories tab's "who and where" and its live list without floods, in a real headless Chromium against
// a real server: the agent in the header, the admin token's agent picker (in the URL), a new #token link in
// the same tab, the "N new records" bar, the reconnect countdown and a revoked token (B5, B6, L1, L2, S6).
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, BrowserContext, Page, WebSocketRoute } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FLOOD_RECORDS } from '../../src/web/live-hold.js';
import { buildWebIntoTemp, launchBrowser, repoRoot } from '../support/browser.js';
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
const MINUTE = 60_000;
const IMPORT = `mutation($input: [ImportMemoryInput!]!) { importMemories(input: $input) { id createdAt } }`;
const SESSION_KEY = 'memory-service.operator-token';

interface Written {
  id: string;
  createdAt: string;
}

interface Desk {
  fx: AgentFixture;
  run: { runId: string; token: string };
  /** Every record of the agent, newest first. */
  ids: string[];
}

let h: Harness;
let webRoot: string;
let base: string;
let browser: Browser;
let alpha: Desk;
let beta: Desk;
const contexts: BrowserContext[] = [];
const pageErrors: string[] = [];

/** The list's order: newest first, equal instants ⇒ greater id first. */
const newestFirst = (records: Written[]) =>
  [...records]
    .sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt) || (a.id < b.id ? 1 : -1))
    .map((r) => r.id);

/** An agent with one ANALYSIS producer, a running run and `count` imported records of that run. */
async function desk(name: string, count: number): Promise<Desk> {
  const fx = await createAgentFixture(h, { name, producers: { scanner: ['ANALYSIS', null] } });
  const run = await startRun(h, fx.producers.scanner!.id);
  const now = Date.now();
  const { importMemories } = await h.ok<{ importMemories: Written[] }>(IMPORT, {
    input: Array.from({ length: count }, (_, i) => ({
      agentId: fx.agentId,
      type: 'scan_note',
      scope: 'AGENT',
      sourceRunId: run.runId,
      createdAt: new Date(now - (i + 1) * 10 * MINUTE).toISOString(),
      content: `${name} note #${i}`,
      metadata: {},
    })),
  });
  return { fx, run, ids: newestFirst(importMemories) };
}

async function newPage(
  viewport = { width: 1280, height: 800 },
  colorScheme: 'light' | 'dark' = 'light',
): Promise<[BrowserContext, Page]> {
  const ctx = await browser.newContext({
    timezoneId: 'America/New_York',
    locale: 'en-US',
    viewport,
    colorScheme,
  });
  contexts.push(ctx);
  const p = await ctx.newPage();
  p.on('pageerror', (error) => pageErrors.push(error.message));
  return [ctx, p];
}

async function shownIds(p: Page): Promise<string[]> {
  return p.locator('article.record').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-id')!));
}

async function pendingCount(p: Page): Promise<number> {
  const bar = p.locator('[data-pending]');
  return (await bar.count()) ? Number(await bar.getAttribute('data-pending')) : 0;
}

async function waitLive(p: Page): Promise<void> {
  await expect.poll(() => p.locator('[data-live]').getAttribute('data-live'), { timeout: 5000 }).toBe('live');
}

/** Signs in with a #token link and waits for the agent's records and the live subscription. */
async function signIn(p: Page, token: string, query = ''): Promise<void> {
  await p.goto(`${base}/${query}#token=${token}`);
  await p.locator('article.record').first().waitFor();
  await waitLive(p);
}

async function writeLive(d: Desk, content: string): Promise<Written> {
  const memory = await writeOk(h, d.run.token, { type: 'live_note', scope: 'AGENT', content });
  return { id: memory.id, createdAt: memory.createdAt };
}

beforeAll(async () => {
  webRoot = await buildWebIntoTemp('memory-web-agents-');
  await mkdir(outputDir, { recursive: true });
  h = await startEmbeddedHarness({ webRoot });
  const address = await h.server.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${address.port}`;
  // Alpha has more records than fit the screen, so the list can be scrolled.
  alpha = await desk('alpha-desk', 40);
  beta = await desk('beta-desk', 3);
  browser = await launchBrowser();
});

afterAll(async () => {
  for (const ctx of contexts) await ctx.close();
  await browser?.close();
  await h?.close();
  if (webRoot) await rm(webRoot, { recursive: true, force: true });
});

describe('who and where', () => {
  it("B6: the header names the operator token's agent; each record shows its run and run status unexpanded", async () => {
    const [, p] = await newPage();
    await signIn(p, alpha.fx.operatorToken);

    expect(await p.locator('.topbar .agent-name').textContent()).toBe('alpha-desk');
    expect(await p.title()).toBe('alpha-desk · Memories');
    expect(p.url()).toBe(`${base}/`);
    await expect.poll(() => shownIds(p)).toEqual(alpha.ids);
    const first = p.locator('article.record').first();
    expect(await first.locator('.record-details').count()).toBe(0);
    expect(await first.locator('.run').getAttribute('data-run-id')).toBe(alpha.run.runId);
    expect(await first.locator('.run').textContent()).toBe(`${alpha.run.runId.slice(0, 8)}running`);
  });

  it('L1: the admin token signs in to an agent picker; the choice lists its records live, is in the URL, survives a reload and switches from the header', async () => {
    const [, p] = await newPage();
    await p.goto(`${base}/#token=${ADMIN_TOKEN}`);
    const links = p.locator('.agent-list a');
    await links.first().waitFor();
    expect(await links.locator('.agent-link-name').allTextContents()).toEqual(['alpha-desk', 'beta-desk']);
    expect(await p.locator('[data-live]').count()).toBe(0);
    await p.screenshot({ path: path.join(outputDir, 'memories-agent-picker.png') });

    await links.filter({ hasText: 'beta-desk' }).click();
    await expect.poll(() => shownIds(p)).toEqual(beta.ids);
    expect(p.url()).toBe(`${base}/?agent=${beta.fx.agentId}`);
    const select = p.locator('.agent-switch select');
    expect(await select.inputValue()).toBe(beta.fx.agentId);
    await waitLive(p);
    // Live with the admin token: the subscription names the agent (L1).
    const live = await writeLive(beta, 'seen by the admin');
    await expect.poll(async () => (await shownIds(p))[0], { timeout: 5000 }).toBe(live.id);
    beta.ids.unshift(live.id);

    await p.reload();
    await expect.poll(() => shownIds(p)).toEqual(beta.ids);
    expect(await select.inputValue()).toBe(beta.fx.agentId);

    await select.selectOption(alpha.fx.agentId);
    await expect.poll(() => shownIds(p)).toEqual(alpha.ids);
    expect(p.url()).toBe(`${base}/?agent=${alpha.fx.agentId}`);
    await p.goBack();
    await expect.poll(() => shownIds(p)).toEqual(beta.ids);
    expect(await select.inputValue()).toBe(beta.fx.agentId);

    // An address naming no agent lands on the picker with the reason.
    await p.goto(`${base}/?agent=00000000-0000-4000-8000-000000000000`);
    await p.getByRole('alert').filter({ hasText: 'No agent with id 00000000' }).waitFor();
    expect(await links.count()).toBe(2);
  });

  it('a shared admin link with ?agent= opens that agent, and the header fits a phone (dark scheme)', async () => {
    const [, p] = await newPage({ width: 390, height: 844 }, 'dark');
    await signIn(p, ADMIN_TOKEN, `?agent=${beta.fx.agentId}`);
    expect(p.url()).toBe(`${base}/?agent=${beta.fx.agentId}`);
    await expect.poll(() => shownIds(p)).toEqual(beta.ids);
    expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await p.screenshot({ path: path.join(outputDir, 'memories-admin-phone.png') });
  });

  it("a second #token link opened in the same tab switches to that token's agent without a reload", async () => {
    const [, p] = await newPage();
    await signIn(p, alpha.fx.operatorToken);
    await p.evaluate(() => Object.assign(window, { __notReloaded: true }));

    await p.goto(`${base}/#token=${beta.fx.operatorToken}`);
    await expect.poll(() => p.locator('.topbar .agent-name').textContent()).toBe('beta-desk');
    await expect.poll(() => shownIds(p)).toEqual(beta.ids);
    expect(p.url()).toBe(`${base}/`);
    expect(await p.evaluate((key) => sessionStorage.getItem(key), SESSION_KEY)).toBe(beta.fx.operatorToken);
    expect(await p.evaluate(() => (window as unknown as { __notReloaded?: boolean }).__notReloaded)).toBe(
      true,
    );
    await waitLive(p);
  });
});

describe('live without floods', () => {
  it('B5: 30 records written while the operator reads further down wait under "30 new records — show", which puts them on top in order, none lost or doubled', async () => {
    const [, p] = await newPage({ width: 1280, height: 700 });
    await signIn(p, alpha.fx.operatorToken);
    const before = await shownIds(p);
    await p.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    expect(
      await p.evaluate(() => document.querySelector('ol.records')!.getBoundingClientRect().top),
    ).toBeLessThan(0);

    const written: Written[] = [];
    for (let i = 0; i < 30; i += 1) written.push(await writeLive(alpha, `burst #${i}`));
    await expect.poll(() => pendingCount(p), { timeout: 5000 }).toBe(30);
    expect(await p.locator('[data-pending]').textContent()).toBe('↑30 new records — show');
    expect(await shownIds(p)).toEqual(before);
    await p.screenshot({ path: path.join(outputDir, 'memories-new-records.png') });

    await p.locator('[data-pending]').click();
    const expected = [...newestFirst(written), ...before];
    await expect.poll(() => shownIds(p)).toEqual(expected);
    expect(new Set(expected).size).toBe(70);
    expect(await p.locator('[data-pending]').count()).toBe(0);
    expect(await p.locator('article.record .badge-new').count()).toBe(30);
    // Keyboard focus lands on the newest record, at the top.
    await expect
      .poll(() => p.evaluate(() => document.activeElement?.getAttribute('data-id')))
      .toBe(expected[0]);
    alpha.ids = expected;
  });

  it('B5: records arriving faster than a few a second wait under the bar even at the top of the list', async () => {
    const [, p] = await newPage();
    await signIn(p, beta.fx.operatorToken);
    const before = await shownIds(p);
    expect(
      await p.evaluate(() => document.querySelector('ol.records')!.getBoundingClientRect().top),
    ).toBeGreaterThan(0);

    const written = await Promise.all(Array.from({ length: 30 }, (_, i) => writeLive(beta, `flood #${i}`)));
    const shownDirectly = async () => (await shownIds(p)).length - before.length;
    await expect
      .poll(async () => (await shownDirectly()) + (await pendingCount(p)), { timeout: 5000 })
      .toBe(30);
    const direct = await shownDirectly();
    expect(direct).toBeLessThanOrEqual(FLOOD_RECORDS);
    expect(await pendingCount(p)).toBe(30 - direct);

    await p.locator('[data-pending]').click();
    const expected = [...newestFirst(written), ...before];
    await expect.poll(() => shownIds(p)).toEqual(expected);
    beta.ids = expected;
  });

  it('B5/L2: while the socket is cut the reconnect countdown counts down; "Retry now" resumes with nothing missed', async () => {
    const [ctx, p] = await newPage();
    let cut = false;
    const open: [WebSocketRoute, WebSocketRoute][] = [];
    await ctx.routeWebSocket(/\/graphql$/, (ws) => {
      // While cut, every new socket is closed at once, as a dropped network would.
      if (cut) return void ws.close({ code: 1012, reason: 'cut by the test' });
      open.push([ws, ws.connectToServer()]);
    });
    await signIn(p, alpha.fx.operatorToken);

    cut = true;
    for (const [page, server] of open.splice(0)) {
      await page.close({ code: 1012, reason: 'cut by the test' });
      await server.close();
    }
    const text = p.locator('[data-live-text]');
    // Backoff 1 s, 2 s, then 4 s: read the 4-second wait twice.
    const shows = (wanted: string) =>
      p.waitForFunction(
        (expected) => document.querySelector('[data-live-text]')?.textContent === expected,
        wanted,
        { timeout: 8000 },
      );
    await shows('Reconnecting in 4s');
    expect(await text.textContent()).toBe('Reconnecting in 4s');
    await p.screenshot({ path: path.join(outputDir, 'memories-reconnecting.png') });
    await shows('Reconnecting in 3s');
    expect(await text.textContent()).toBe('Reconnecting in 3s');
    expect(await p.locator('[data-live]').getAttribute('data-live')).toBe('reconnecting');

    const missed = await writeLive(alpha, 'written while the socket was cut');
    cut = false;
    await p.getByRole('button', { name: 'Retry now' }).click();
    await waitLive(p);
    await expect.poll(async () => (await shownIds(p))[0], { timeout: 5000 }).toBe(missed.id);
    expect((await shownIds(p)).filter((id) => id === missed.id)).toHaveLength(1);
  });
});

describe('ended sessions', () => {
  it('S6: revoking the operator token returns the open page to the sign-in form with a clear message', async () => {
    const { createOperatorToken } = await h.ok<{
      createOperatorToken: { token: string; operatorToken: { id: string } };
    }>(
      'mutation($a: UUID!) { createOperatorToken(agentId: $a, label: "to revoke") { token operatorToken { id } } }',
      {
        a: alpha.fx.agentId,
      },
    );
    const [, p] = await newPage();
    await signIn(p, createOperatorToken.token);

    await h.ok('mutation($id: UUID!) { revokeOperatorToken(id: $id) { revokedAt } }', {
      id: createOperatorToken.operatorToken.id,
    });
    await p.getByLabel('Operator token').waitFor({ timeout: 5000 });
    expect(await p.getByRole('alert').textContent()).toBe(
      'Your session ended: this token was revoked or is no longer valid. Sign in with a new link or token.',
    );
    expect(await p.evaluate((key) => sessionStorage.getItem(key), SESSION_KEY)).toBeNull();
  });

  it('a run token cannot browse here: back to the sign-in form with the reason', async () => {
    const [, p] = await newPage();
    await p.goto(`${base}/#token=${alpha.run.token}`);
    await p.getByLabel('Operator token').waitFor({ timeout: 5000 });
    expect(await p.getByRole('alert').textContent()).toBe(
      'This token may not browse memories. Use an operator token or the admin token.',
    );
    expect(pageErrors).toEqual([]);
  });
});

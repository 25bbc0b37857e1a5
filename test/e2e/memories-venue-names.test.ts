// V1: HIP-3 builder perps (`xyz:TSLA`) and case-sensitive main-dex names (`kPEPE`) on the operator's
// page, in a real headless Chromium: the instruments filter kept in the address, the record's chips,
// the Context tab chosen from the agent's instruments and reloaded from its address.
import { rm } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
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

const HIP3 = 'xyz:TSLA';
let h: Harness;
let webRoot: string;
let base: string;
let browser: Browser;
let fx: AgentFixture;
const ids: Record<string, string> = {};
const pageErrors: string[] = [];

beforeAll(async () => {
  webRoot = await buildWebIntoTemp('memory-web-venue-names-');
  h = await startEmbeddedHarness({ webRoot });
  const address = await h.server.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${address.port}`;
  fx = await createAgentFixture(h, { name: 'hip3-desk', instruments: ['BTC', 'kPEPE', HIP3] });
  const run = await startRun(h, fx.producers.adhoc!.id);
  const write = (instruments: string[], content: string) =>
    writeOk(h, run.token, { type: 'ema_handoff', scope: 'INSTRUMENTS', instruments, content });
  ids.tsla = (await write([HIP3], 'TSLA 1h: EMA cross up')).id as string;
  ids.pepe = (await write(['kPEPE'], 'kPEPE 5m: range')).id as string;
  ids.btc = (await write(['BTC'], 'BTC 5m: trend')).id as string;
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await h?.close();
  if (webRoot) await rm(webRoot, { recursive: true, force: true });
});

async function open(address: string): Promise<Page> {
  const page = await (await browser.newContext({ locale: 'en-US' })).newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto(`${base}${address}`);
  return page;
}
const shownIds = (page: Page) =>
  page.locator('article.record').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-id')!));

describe('V1: venue names on the page', { timeout: 120_000 }, () => {
  it('V1: a shared address filtering on xyz:TSLA lists its record, with the id as its chip', async () => {
    for (const query of [`?instruments=${HIP3}`, `?instruments=${encodeURIComponent(HIP3)}`]) {
      const page = await open(`/${query}#token=${fx.operatorToken}`);
      await page.locator(`article.record[data-id="${ids.tsla}"]`).waitFor();
      await expect.poll(() => shownIds(page)).toEqual([ids.tsla]);
      expect(await page.locator(`article.record[data-id="${ids.tsla}"] .chip`).allTextContents()).toEqual([
        HIP3,
      ]);
      expect(new URL(page.url()).searchParams.get('instruments')).toBe(HIP3);
      await page.context().close();
    }
    expect(pageErrors).toEqual([]);
  });

  it("V1: the Context tab offers the agent's HIP-3 instrument and reloads it from the address", async () => {
    const page = await open(`/#token=${fx.operatorToken}`);
    await page.locator('article.record').first().waitFor();
    await page.goto(`${base}/#/context?instrument=${encodeURIComponent(HIP3)}`);
    const context = page.locator(`.ctx[data-instrument="${HIP3}"]`);
    await context.waitFor();
    expect(
      await context
        .locator('[data-part="fresh"] .ctx-item')
        .evaluateAll((n) => n.map((e) => e.getAttribute('data-memory-id'))),
    ).toEqual([ids.tsla]);
    const options = await page.locator('select[name="instrument"] option').allTextContents();
    expect(options).toEqual(['BTC', 'kPEPE', HIP3]);
    await page.selectOption('select[name="instrument"]', 'kPEPE');
    await page.locator('.ctx[data-instrument="kPEPE"]').waitFor();
    await page.reload();
    await page.locator('.ctx[data-instrument="kPEPE"]').waitFor();
    await page.selectOption('select[name="instrument"]', HIP3);
    await context.waitFor();
    expect(decodeURIComponent(new URL(page.url()).hash)).toContain(`instrument=${HIP3}`);
    await page.context().close();
    expect(pageErrors).toEqual([]);
  });
});

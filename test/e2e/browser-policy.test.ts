// S2 against a real listener: the WebSocket's Origin check at upgrade, and GraphiQL in a real
// Chromium with every request outside 127.0.0.1 aborted (offline) under the served CSP.
import { rm } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWebIntoTemp, launchBrowser } from '../support/browser.js';
import {
  createAgentFixture,
  startEmbeddedHarness,
  startRun,
  writeOk,
  type Harness,
} from '../support/harness.js';

const LISTED = 'https://ops.example.com';

let webRoot: string;

let h: Harness;
let base: string;
let operatorToken: string;

beforeAll(async () => {
  // The operator page as `npm start` builds it, into a folder of this file's own.
  webRoot = await buildWebIntoTemp('memory-web-csp-');
  // GraphiQL pre-fills the demo's operator token (main.ts passes it in demo mode).
  h = await startEmbeddedHarness({
    webRoot,
    server: { corsOrigins: [LISTED], graphiqlToken: () => operatorToken },
  });
  const address = await h.server.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${address.port}`;
  const fx = await createAgentFixture(h);
  operatorToken = fx.operatorToken;
  const run = await startRun(h, fx.producers.adhoc!.id);
  await writeOk(h, run.token, { type: 'offline_probe', scope: 'AGENT', content: 'seen in GraphiQL' });
});

afterAll(async () => {
  await h?.close();
  if (webRoot) await rm(webRoot, { recursive: true, force: true });
});

/** Opens a graphql-ws socket with the given Origin (or none); resolves with the upgrade's outcome. */
function upgrade(origin: string | undefined): Promise<{ opened: boolean; status?: number }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${base.replace('http', 'ws')}/graphql`, 'graphql-transport-ws', {
      ...(origin ? { origin } : {}),
    });
    const timer = setTimeout(() => reject(new Error('no upgrade outcome in 5 s')), 5000);
    socket.once('open', () => {
      clearTimeout(timer);
      socket.close();
      resolve({ opened: true });
    });
    socket.once('unexpected-response', (_request, response) => {
      clearTimeout(timer);
      response.resume();
      resolve({ opened: false, status: response.statusCode });
    });
    socket.once('error', () => undefined);
  });
}

describe('S2: the WebSocket checks Origin', () => {
  it('S2: the WebSocket refuses a foreign Origin with 403 at upgrade', async () => {
    for (const origin of [
      'https://evil.example',
      'null',
      'http://127.0.0.1.evil.example',
      'http://localhost:1',
    ]) {
      expect(await upgrade(origin), origin).toEqual({ opened: false, status: 403 });
    }
  });

  it('S2: the WebSocket accepts no Origin (agents), its own origin and a CORS_ORIGINS origin', async () => {
    expect(await upgrade(undefined)).toEqual({ opened: true });
    expect(await upgrade(base)).toEqual({ opened: true });
    expect(await upgrade(LISTED)).toEqual({ opened: true });
  });
});

describe('S2: GraphiQL in a browser', () => {
  let browser: Browser | undefined;

  afterAll(async () => {
    await browser?.close();
  });

  /** A page whose requests outside 127.0.0.1 are aborted and recorded, with its errors collected. */
  async function offlinePage(headers: Record<string, string> = {}) {
    browser ??= await launchBrowser();
    const context = await browser.newContext({ extraHTTPHeaders: headers });
    const outside: string[] = [];
    await context.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (['http:', 'https:', 'ws:', 'wss:'].includes(url.protocol) && url.hostname !== '127.0.0.1') {
        outside.push(url.href);
        return route.abort();
      }
      return route.continue();
    });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
    // CSP violations are reported as console errors.
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    return { page, outside, problems };
  }

  it('S2: GraphiQL works offline under its CSP and runs its default query with the pre-filled token', async () => {
    const { page, outside, problems } = await offlinePage();

    const response = await page.goto(`${base}/graphql`);
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
    // The default query is in the editor; run it.
    await page.locator('.graphiql-execute-button').waitFor({ timeout: 20_000 });
    await expect
      .poll(() => page.locator('.graphiql-query-editor').innerText(), { timeout: 20_000 })
      .toContain('memoryTypes');
    await page.locator('.graphiql-execute-button').click();
    await expect
      .poll(() => page.locator('.graphiql-response').innerText(), { timeout: 20_000 })
      .toContain('offline_probe');

    expect(outside).toEqual([]);
    expect(problems).toEqual([]);
  }, 90_000);

  it('S2: the operator page signs in and lists records under its CSP without a violation', async () => {
    const { page, outside, problems } = await offlinePage();
    const response = await page.goto(`${base}/#token=${operatorToken}`);
    expect(response?.headers()['content-security-policy']).toContain("style-src 'self';");
    // The list, whatever the producers' health (a bare address may open the Health tab, B8).
    await page.waitForFunction(() => !window.location.hash.includes('token='));
    await page.evaluate(() => window.location.replace('#/'));
    await page.locator('article.record[data-type="offline_probe"]').waitFor({ timeout: 20_000 });
    expect(outside).toEqual([]);
    expect(problems).toEqual([]);
  }, 90_000);
});

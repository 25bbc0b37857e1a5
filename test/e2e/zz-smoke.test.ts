import { test } from 'vitest';
import { seedDemo } from '../../src/demo/seed.js';
import { buildWebIntoTemp, launchBrowser } from '../../test/support/browser.js';
import { startHarness } from '../../test/support/harness.js';

test('smoke', async () => {
  const webRoot = await buildWebIntoTemp('smoke-');
  const h = await startHarness({ webRoot });
  const seed = (await seedDemo(h.db, new Date()))!;
  const address = await h.server.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${address.port}`;
  const browser = await launchBrowser();
  const now = Date.now();
  const iso = (m: number) => new Date(now + m * 60000).toISOString();
  const producer = (name: string, schedule: string | null) => ({ id: name, name, kind: 'ANALYSIS', schedule });
  const ph = (name: string, status: string) => ({
    producer: producer(name, '5m'), status, lastRun: { id: 'r', status: 'SUCCEEDED', startedAt: iso(-15), finishedAt: iso(-14), evidenceBoundary: iso(-20), recordCount: 2, empty: false },
    lastRecordAt: iso(-14), nextBoundary: iso(3), cyclesExpected: 288, cyclesWithRecord: 100, missedBoundaries: [iso(-5)],
    latenessP50Seconds: 40, latenessP95Seconds: 95, latenessMaxSeconds: 400, staleOnArrival: 1, failedRuns: 2, cancelledRuns: 0, emptyRuns: 3,
  });
  const memId = '7c0c8a3e-2f4b-4d35-9b8e-0d3f5a1c2b4d';
  const health = {
    producerHealth: [ph('ema-crossover-5m', 'MISSING'), ph('funding-basis-1h', 'LATE'), ph('macro-news-desk', 'UNSCHEDULED')],
    freshnessBoard: { at: iso(0), instruments: ['BTC', 'ETH', 'SOL'].map((instrument) => ({ instrument,
      groups: [
        { producer: producer('ema-crossover-5m', '5m'), type: 'ema_handoff', state: 'STALE', memoryId: memId, expiresAt: iso(-5) },
        { producer: producer('funding-basis-1h', '1h'), type: 'funding_basis', state: 'FRESH', memoryId: memId, expiresAt: iso(40) },
        { producer: producer('macro-news-desk', null), type: 'macro_note', state: 'NONE', memoryId: null, expiresAt: null },
      ],
      latestDecision: { id: memId, type: 'trading_decision', content: 'No trade: bearish', createdAt: iso(-7) }, decisionFreshEvidence: 3, decisionStaleEvidence: 1 })) },
  };
  const timeline = { freshnessTimeline: { instrument: 'BTC', lanes: [
    { producer: producer('ema-crossover-5m', '5m'), type: 'ema_handoff', intervals: [-600, -500, -300, -120, -60].map((m) => ({ from: iso(m), to: iso(m + 50), memoryId: memId, corrected: m === -300 })) },
    { producer: producer('funding-basis-1h', '1h'), type: 'funding_basis', intervals: [{ from: iso(-1400), to: iso(40), memoryId: memId, corrected: false }] },
  ], decisions: [{ id: memId, type: 'trading_decision', content: 'No trade', createdAt: iso(-7) }, { id: memId, type: 'trading_decision', content: 'Hold', createdAt: iso(-400) }] } };
  for (const [scheme, w] of [['light', 1280], ['dark', 390]] as const) {
    const ctx = await browser.newContext({ timezoneId: 'America/New_York', locale: 'en-US', viewport: { width: w, height: 900 }, colorScheme: scheme });
    const p = await ctx.newPage();
    p.on('pageerror', (e) => console.log('PAGEERROR', e.message));
    p.on('console', (m) => { if (m.type() === 'error') console.log('CONSOLE', m.text()); });
    await p.route('**/graphql', async (route) => {
      const body = route.request().postData() ?? '';
      if (body.includes('query Health')) return route.fulfill({ json: { data: health } });
      if (body.includes('query Timeline')) return route.fulfill({ json: { data: timeline } });
      return route.continue();
    });
    await p.goto(`${base}/#token=${seed.operatorToken}`);
    await p.locator('main.health-tab svg').waitFor({ timeout: 15000 });
    console.log(scheme, new URL(p.url()).hash, await p.locator('[data-health-badge]').textContent(), await p.evaluate(() => document.documentElement.scrollWidth));
    await p.screenshot({ path: `/tmp/x/smoke-${scheme}.png`, fullPage: true });
    await ctx.close();
  }
  await browser.close();
  await h.close();
}, 120000);

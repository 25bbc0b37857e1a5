// Debian's Chromium through playwright-core for the operator page's browser tests, and the page's bundle
// built into a folder of the test file's own (test files run in parallel).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: install it with "apt-get install -y chromium"`);
  }
  // launch() gives every run a fresh temporary user-data-dir.
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/** The page as `npm start` builds it, into a new temporary folder; returns the folder. */
export async function buildWebIntoTemp(prefix: string): Promise<string> {
  const webRoot = await mkdtemp(path.join(os.tmpdir(), prefix));
  execFileSync(process.execPath, [path.join(repoRoot, 'scripts/build-web.mjs'), '--outdir', webRoot], {
    cwd: repoRoot,
  });
  return webRoot;
}

/**
 * Opens a `#token=…` sign-in link and then the Memories list. A bare address opens the Health tab while
 * a producer is LATE or MISSING (B8, B9), which depends on the wall clock for scheduled producers:
 * tests of the list name it (`#/`), replacing the entry so Back still leaves the page.
 */
export async function signInToList(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.waitForFunction(() => !window.location.hash.includes('token='));
  await page.evaluate(() => window.location.replace('#/'));
}

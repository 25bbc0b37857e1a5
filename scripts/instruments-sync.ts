// npm run instruments:sync [-- --dex NAME] [-- --meta FILE]: the instrument catalog from the venue's
// own answers (V2). Asks HYPERLIQUID_INFO_URL for {"type":"perpDexs"} and each dex's {"type":"meta"}
// (or reads one meta answer from FILE), and hands each to the running service's syncInstruments
// (MEMORY_URL, ADMIN_TOKEN). One transaction per dex; a malformed answer changes nothing.
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { ConfigError } from '../src/config.js';
import { loadInstrumentSyncConfig } from '../src/instrument-sync-config.js';
import { parsePerpDexsAnswer } from '../src/domain/venue-catalog.js';

const SYNC = `mutation($meta: JSON!, $dex: String) {
  syncInstruments(meta: $meta, dex: $dex) { added reactivated deactivated unchanged } }`;

interface Summary {
  added: string[];
  reactivated: string[];
  deactivated: string[];
  unchanged: number;
}

class SyncFailure extends Error {}

async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    throw new SyncFailure(`cannot reach ${url}: ${(error as Error).message}`);
  }
  const text = await response.text();
  if (!response.ok && !text.startsWith('{')) throw new SyncFailure(`${url} answered HTTP ${response.status}`);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new SyncFailure(`${url} answered HTTP ${response.status} without JSON`);
  }
}

const list = (names: string[]) => (names.length ? ` (${names.join(', ')})` : '');

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { meta: { type: 'string' }, dex: { type: 'string' } } });
  let settings;
  try {
    settings = loadInstrumentSyncConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`configuration error: ${error.message}`);
    return 2;
  }
  const dex = values.dex ?? null;
  const answers: [string | null, () => Promise<unknown>][] = [];
  const venueMeta = (name: string | null) => () =>
    postJson(settings.infoUrl, name === null ? { type: 'meta' } : { type: 'meta', dex: name });
  if (values.meta) {
    const file = values.meta;
    answers.push([dex, async () => JSON.parse(await readFile(file, 'utf8')) as unknown]);
  } else if (values.dex) {
    answers.push([dex, venueMeta(dex)]);
  } else {
    const dexes = parsePerpDexsAnswer(await postJson(settings.infoUrl, { type: 'perpDexs' }));
    if (!dexes.ok) throw new SyncFailure(`the venue's perpDexs answer is malformed: ${dexes.message}`);
    for (const name of [null, ...dexes.value]) answers.push([name, venueMeta(name)]);
  }
  for (const [name, answer] of answers) {
    const result = (await postJson(
      `${settings.memoryUrl}/graphql`,
      { query: SYNC, variables: { meta: await answer(), dex: name } },
      { authorization: `Bearer ${settings.adminToken}` },
    )) as { data?: { syncInstruments: Summary }; errors?: { message: string }[] };
    const label = name === null ? 'main dex' : `dex ${name}`;
    if (!result.data?.syncInstruments)
      throw new SyncFailure(`${label}: ${result.errors?.[0]?.message ?? 'the service answered no data'}`);
    const { added, reactivated, deactivated, unchanged } = result.data.syncInstruments;
    console.log(
      `${label}: added ${added.length}${list(added)}, reactivated ${reactivated.length}${list(reactivated)}, deactivated ${deactivated.length}${list(deactivated)}, unchanged ${unchanged}`,
    );
  }
  return 0;
}

try {
  process.exitCode = await main();
} catch (error) {
  if (!(error instanceof SyncFailure)) throw error;
  console.error(`instruments:sync failed: ${error.message} (nothing was changed for this dex)`);
  process.exitCode = 1;
}

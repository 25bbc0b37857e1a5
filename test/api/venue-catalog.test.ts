// V2, V3: the catalog synced from the venue's own `meta` answers (fixtures of the documented shape in
// test/fixtures/hyperliquid/): a first import, a re-run that changes nothing, a delisting, a vanished
// name, a builder dex beside the main dex, malformed answers that change nothing — through
// syncInstruments and through `npm run instruments:sync` against a stand-in venue on 127.0.0.1.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_TOKEN,
  createAgentFixture,
  startHarness,
  startRun,
  writeMemory,
  writeOk,
  type Harness,
} from '../support/harness.js';
import { repoRoot } from '../support/mcp.js';

const FIXTURES = path.join(repoRoot, 'test/fixtures/hyperliquid');
const fixture = async (name: string): Promise<unknown> =>
  JSON.parse(await readFile(path.join(FIXTURES, name), 'utf8')) as unknown;
const SYNC = `mutation($meta: JSON!, $dex: String) {
  syncInstruments(meta: $meta, dex: $dex) { added reactivated deactivated unchanged } }`;

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

async function catalog() {
  return h.db.prisma.instrument.findMany({
    orderBy: { id: 'asc' },
    select: { id: true, active: true, szDecimals: true, maxLeverage: true, updatedAt: true },
  });
}
const sync = (meta: unknown, dex: string | null = null) =>
  h.ok<{ syncInstruments: Record<string, unknown> }>(SYNC, { meta, dex }).then((d) => d.syncInstruments);

describe('V2: syncInstruments from the venue answer', () => {
  it('V2: a first import adds every name, a delisted one inactive, with the venue parameters', async () => {
    expect(await sync(await fixture('meta.json'))).toEqual({
      added: ['BTC', 'ETH', 'HPOS', 'SOL', 'kPEPE'],
      reactivated: [],
      deactivated: [],
      unchanged: 0,
    });
    const rows = await catalog();
    expect(
      rows.map(({ id, active, szDecimals, maxLeverage }) => [id, active, szDecimals, maxLeverage]),
    ).toEqual([
      ['BTC', true, 5, 40],
      ['ETH', true, 4, 25],
      ['HPOS', false, 0, 3],
      ['SOL', true, 2, 20],
      ['kPEPE', true, 0, 10],
    ]);
  });

  it('V2: a re-run of the same answer changes nothing', async () => {
    const before = await catalog();
    expect(await sync(await fixture('meta.json'))).toEqual({
      added: [],
      reactivated: [],
      deactivated: [],
      unchanged: 5,
    });
    expect(await catalog()).toEqual(before); // not even updatedAt moved
  });

  it('V2/V3: a delisting and a vanished name deactivate, a relisting reactivates; records and selections stay', async () => {
    const fx = await createAgentFixture(h, { instruments: ['BTC', 'SOL', 'kPEPE'] });
    const run = await startRun(h, fx.producers.adhoc!.id);
    const solNote = await writeOk(h, run.token, {
      type: 'ema_handoff',
      scope: 'INSTRUMENTS',
      instruments: ['SOL', 'kPEPE'],
      content: 'before the delisting',
    });
    expect(await sync(await fixture('meta-later.json'))).toEqual({
      added: ['HYPE'],
      reactivated: ['HPOS'],
      deactivated: ['SOL', 'kPEPE'], // SOL delisted, kPEPE gone from the answer
      unchanged: 2,
    });
    const rows = new Map((await catalog()).map((row) => [row.id, row]));
    expect([...rows.keys()]).toEqual(['BTC', 'ETH', 'HPOS', 'HYPE', 'SOL', 'kPEPE']); // nothing deleted
    expect(rows.get('HPOS')).toMatchObject({ active: true, maxLeverage: 5 });
    expect(rows.get('kPEPE')).toMatchObject({ active: false });
    // V3: the record, its targets and the selection are as they were; new writes to SOL are refused.
    const { memory } = await h.ok<{ memory: { instruments: string[] } }>(
      'query($id: UUID!) { memory(id: $id) { instruments } }',
      { id: solNote.id },
      fx.operatorToken,
    );
    expect(memory.instruments).toEqual(['SOL', 'kPEPE']);
    const { agent } = await h.ok<{ agent: { instruments: string[] } }>(
      'query($a: UUID!) { agent(id: $a) { instruments } }',
      { a: fx.agentId },
    );
    expect(agent.instruments).toEqual(['BTC', 'SOL', 'kPEPE']);
    const refused = await writeMemory(h, run.token, {
      type: 'ema_handoff',
      scope: 'INSTRUMENTS',
      instruments: ['SOL'],
      content: 'after',
    });
    expect(refused).toMatchObject({ code: 'invalid_memory_target', instrumentIndex: 0 });
  });

  it("V2: a builder dex's sync compares only its own names, and the main dex's leaves them alone", async () => {
    expect(await sync(await fixture('meta-xyz.json'), 'xyz')).toEqual({
      added: ['xyz:NVDA', 'xyz:TSLA', 'xyz:XYZ100'],
      reactivated: [],
      deactivated: [],
      unchanged: 0,
    });
    const main = await sync(await fixture('meta-later.json'));
    expect(main).toMatchObject({ added: [], deactivated: [], reactivated: [] });
    const xyz = (await catalog()).filter((row) => row.id.startsWith('xyz:'));
    expect(xyz.every((row) => row.active)).toBe(true);
    // An answer with only TSLA left deactivates the other two xyz perps and nothing of the main dex.
    const tslaOnly = { universe: [{ name: 'xyz:TSLA', szDecimals: 3, maxLeverage: 10 }] };
    expect(await sync(tslaOnly, 'xyz')).toEqual({
      added: [],
      reactivated: [],
      deactivated: ['xyz:NVDA', 'xyz:XYZ100'],
      unchanged: 1,
    });
    expect((await catalog()).find((row) => row.id === 'BTC')?.active).toBe(true);
  });

  it('V2: a malformed answer changes nothing and says what was wrong', async () => {
    const before = await catalog();
    const cases: [unknown, string | null, string, RegExp][] = [
      [await fixture('meta-malformed.json'), null, 'meta.universe[1].szDecimals', /szDecimals/],
      [{ universe: [] }, null, 'meta.universe', /universe is empty/],
      [[1, 2], null, 'meta', /object/],
      [
        { universe: [{ name: 'TSLA', szDecimals: 3, maxLeverage: 10 }] },
        'xyz',
        'meta.universe[0].name',
        /does not belong to dex xyz/,
      ],
      [
        { universe: [{ name: 'xyz:TSLA', szDecimals: 3, maxLeverage: 10 }] },
        null,
        'meta.universe[0].name',
        /main dex/,
      ],
      [
        { universe: [{ name: 'ETH-PERP', szDecimals: 3, maxLeverage: 10 }] },
        null,
        'meta.universe[0].name',
        /xyz:TSLA/,
      ],
      [
        {
          universe: [
            { name: 'BTC', szDecimals: 5, maxLeverage: 40 },
            { name: 'BTC', szDecimals: 5, maxLeverage: 40 },
          ],
        },
        null,
        'meta.universe[1].name',
        /listed twice/,
      ],
      [{ universe: [{ name: 'x:A', szDecimals: 1, maxLeverage: 1 }] }, 'X', 'dex', /dex must be/],
    ];
    for (const [meta, dex, field, message] of cases) {
      const result = await h.gql(SYNC, { meta, dex });
      expect(result.errors?.[0]?.extensions, field).toMatchObject({ code: 'BAD_USER_INPUT', field });
      expect(result.errors?.[0]?.message, field).toMatch(message);
    }
    expect(await catalog()).toEqual(before);
  });
});

/** A stand-in for the venue's info endpoint: answers the fixtures by request body, counts requests. */
async function fakeVenue(answers: (body: Record<string, unknown>) => Promise<unknown>) {
  const requests: Record<string, unknown>[] = [];
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      const body = JSON.parse(text) as Record<string, unknown>;
      requests.push(body);
      void answers(body).then((answer) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer)),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/info`;
  return { url, requests, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

function runSync(env: Record<string, string>, args: string[] = []) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/instruments-sync.ts', ...args], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once('exit', (code) => resolve({ code, stdout, stderr })),
  );
}

describe('V2: npm run instruments:sync', { timeout: 120_000 }, () => {
  it('V2: the script reads perpDexs and every dex meta from HYPERLIQUID_INFO_URL, or one answer from --meta', async () => {
    const own = await startHarness();
    const address = await own.server.listen(0, '127.0.0.1');
    const memoryUrl = `http://127.0.0.1:${address.port}`;
    const venue = await fakeVenue(async (body) => {
      if (body.type === 'perpDexs') return fixture('perp-dexs.json');
      return fixture(body.dex === 'xyz' ? 'meta-xyz.json' : 'meta.json');
    });
    try {
      const env = { HYPERLIQUID_INFO_URL: venue.url, MEMORY_URL: memoryUrl, ADMIN_TOKEN };
      const first = await runSync(env);
      expect(first.stderr).toBe('');
      expect(first.code).toBe(0);
      expect(first.stdout).toBe(
        'main dex: added 5 (BTC, ETH, HPOS, SOL, kPEPE), reactivated 0, deactivated 0, unchanged 0\n' +
          'dex xyz: added 3 (xyz:NVDA, xyz:TSLA, xyz:XYZ100), reactivated 0, deactivated 0, unchanged 0\n',
      );
      expect(venue.requests).toEqual([{ type: 'perpDexs' }, { type: 'meta' }, { type: 'meta', dex: 'xyz' }]);
      const again = await runSync(env);
      expect(again.stdout).toContain('main dex: added 0, reactivated 0, deactivated 0, unchanged 5');
      // --meta FILE --dex NAME: one answer from a file, no venue request.
      const asked = venue.requests.length;
      const file = await runSync(env, ['--meta', path.join(FIXTURES, 'meta-later.json')]);
      expect(file.stdout).toBe(
        'main dex: added 1 (HYPE), reactivated 1 (HPOS), deactivated 2 (SOL, kPEPE), unchanged 2\n',
      );
      expect(venue.requests.length).toBe(asked);
      // A malformed answer: exit 1, the reason, nothing changed.
      const before = await own.db.prisma.instrument.findMany({ orderBy: { id: 'asc' } });
      const bad = await runSync(env, ['--meta', path.join(FIXTURES, 'meta-malformed.json')]);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain('meta.universe[1].szDecimals');
      expect(await own.db.prisma.instrument.findMany({ orderBy: { id: 'asc' } })).toEqual(before);
      const noToken = await runSync({
        HYPERLIQUID_INFO_URL: venue.url,
        MEMORY_URL: memoryUrl,
        DATA_DIR: '/nonexistent',
      });
      expect(noToken.code).toBe(2);
      expect(noToken.stderr).toContain('ADMIN_TOKEN is required');
    } finally {
      await venue.close();
      await own.close();
    }
  });
});

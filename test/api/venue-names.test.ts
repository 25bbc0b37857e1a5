// V1: instrument ids are the venue's exact names — main-dex (`BTC`, `kPEPE`) and HIP-3 builder perps
// (`xyz:TSLA`) — case-sensitive, and they round-trip unchanged through GraphQL, REST, MCP, the
// memories filter and both export formats.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAgentFixture,
  startHarness,
  startRun,
  writeMemory,
  writeOk,
  type AgentFixture,
  type Harness,
} from '../support/harness.js';
import { getExport, ndjsonRecords, parseCsv } from '../support/export.js';
import { mcpRequest } from '../support/mcp.js';

const HIP3 = 'xyz:TSLA';
let h: Harness;
let fx: AgentFixture;
let analysis: string;

beforeAll(async () => {
  h = await startHarness();
  fx = await createAgentFixture(h, { instruments: ['BTC', 'kPEPE', HIP3] });
  analysis = (await startRun(h, fx.producers.adhoc!.id)).token;
});
afterAll(() => h.close());

describe('V1: the venue names are the catalog ids', () => {
  it('V1: upsertInstrument takes main-dex and builder-dex names as spelt and refuses other shapes', async () => {
    for (const id of ['kPEPE', 'xyz:TSLA', 'flx:XYZ100', 'btc']) {
      const data = await h.ok<{ upsertInstrument: { id: string } }>(
        'mutation($id: String!) { upsertInstrument(input: { id: $id }) { id } }',
        { id },
      );
      expect(data.upsertInstrument.id).toBe(id);
    }
    for (const id of ['ETH-PERP', 'XYZ:TSLA', 'xyz:', ':TSLA', 'xyz:TS LA', 'a:b:c', '']) {
      const result = await h.gql('mutation($id: String!) { upsertInstrument(input: { id: $id }) { id } }', {
        id,
      });
      expect(result.errors?.[0]?.extensions, id).toMatchObject({ code: 'BAD_USER_INPUT', field: 'id' });
      expect(result.errors?.[0]?.message).toContain('xyz:TSLA');
    }
    // The database holds the same rule (the migration's CHECK): a row the API would refuse cannot exist.
    await expect(
      h.db.prisma.$executeRawUnsafe(`INSERT INTO "Instrument" (id) VALUES ('ETH-PERP')`),
    ).rejects.toThrow();
  });

  it('V1: ids are case-sensitive — a write to "btc" or "XYZ:tsla" is invalid_memory_target, not BTC', async () => {
    for (const [instruments, index] of [
      [['BTC', 'btc'], 1],
      [['xyz:tsla'], 0],
    ] as const) {
      const result = await writeMemory(h, analysis, {
        type: 'ema_handoff',
        scope: 'INSTRUMENTS',
        instruments,
        content: 'case',
      });
      expect(result).toMatchObject({ code: 'invalid_memory_target', instrumentIndex: index });
    }
  });

  it('V1: a HIP-3 id round-trips through GraphQL, REST, MCP, the memories filter and both exports', async () => {
    const viaGraphql = await writeOk(h, analysis, {
      type: 'ema_handoff',
      scope: 'INSTRUMENTS',
      instruments: [HIP3, 'kPEPE'],
      content: 'TSLA 1h: EMA cross up',
    });
    expect(viaGraphql.instruments).toEqual([HIP3, 'kPEPE']);
    const rest = await h.fetch('/api/v1/memories', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${analysis}` },
      body: JSON.stringify({
        type: 'ema_handoff',
        scope: 'INSTRUMENTS',
        instruments: [HIP3],
        content: 'rest',
      }),
    });
    expect(rest.status).toBe(201);
    const viaRest = ((await rest.json()) as { memory: { id: string; instruments: string[] } }).memory;
    expect(viaRest.instruments).toEqual([HIP3]);
    await writeOk(h, analysis, {
      type: 'ema_handoff',
      scope: 'INSTRUMENTS',
      instruments: ['BTC'],
      content: 'x',
    });

    const filtered = await h.ok<{ memories: { edges: { node: { id: string; instruments: string[] } }[] } }>(
      'query($f: MemoryFilter) { memories(filter: $f, first: 10) { edges { node { id instruments } } } }',
      { f: { instruments: [HIP3] } },
      fx.operatorToken,
    );
    expect(filtered.memories.edges.map((edge) => edge.node.id)).toEqual([viaRest.id, viaGraphql.id]);

    const context = await h.ok<{ tradingContext: { instrument: string; entries: { memoryId: string }[] } }>(
      'query($i: String!) { tradingContext(instrument: $i) { instrument entries { memoryId } } }',
      { i: HIP3 },
      fx.operatorToken,
    );
    expect(context.tradingContext.instrument).toBe(HIP3);
    expect(context.tradingContext.entries.map((entry) => entry.memoryId)).toEqual([viaRest.id]);

    const mcp = await h.fetch(
      '/mcp',
      mcpRequest(fx.operatorToken, {
        method: 'tools/call',
        params: { name: 'get_trading_context', arguments: { instrument: HIP3 } },
      }),
    );
    const called = (await mcp.json()) as { result: { structuredContent: Record<string, any> } };
    expect(called.result.structuredContent).toMatchObject({
      instrument: HIP3,
      entries: [{ memory_id: viaRest.id }],
    });

    // The export's query string, with the colon as typed and percent-encoded.
    for (const query of [`instruments=${HIP3}`, `instruments=${encodeURIComponent(HIP3)}`]) {
      const ndjson = ndjsonRecords(
        await (await getExport(h, `format=ndjson&${query}`, fx.operatorToken)).text(),
      );
      expect(ndjson.map((record) => [record.id, record.instruments])).toEqual([
        [viaRest.id, [HIP3]],
        [viaGraphql.id, [HIP3, 'kPEPE']],
      ]);
      const csv = await parseCsv(await (await getExport(h, `format=csv&${query}`, fx.operatorToken)).text());
      expect(csv.map((row) => [row.id, row.instruments])).toEqual([
        [viaRest.id, HIP3],
        [viaGraphql.id, `${HIP3};kPEPE`],
      ]);
    }
  });
});

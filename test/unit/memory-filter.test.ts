// B2 (B2, B5): the filter's new fields as pure rules — resolved and normalised once,
// the live predicate over a record's facts, and page cursors pinned to every field.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/domain/errors.js';
import {
  EVERY_RECORD,
  filterDigest,
  matchesFilter,
  resolveFilter,
  resolveTypeCountFilter,
  type FilterFacts,
  type MemoryFilterArgs,
} from '../../src/domain/memory-filter.js';

const now = new Date('2026-09-01T10:00:00.000Z');
const PRODUCER = '0000000a-0000-4000-8000-000000000001';
const record: FilterFacts = {
  type: 'ema_handoff',
  createdAt: new Date('2026-09-01T09:59:00.000Z'),
  instruments: ['ETH', 'BTC'],
  producerId: PRODUCER,
  runKind: 'ANALYSIS',
  expiresAt: new Date('2026-09-01T10:05:00.000Z'),
};
const imported: FilterFacts = {
  ...record,
  instruments: [],
  producerId: null,
  runKind: null,
  expiresAt: null,
};

function fieldOf(filter: MemoryFilterArgs): string | undefined {
  try {
    resolveFilter(filter, now);
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return (error as InputError).field;
  }
  return undefined;
}

describe('resolveFilter (B2)', () => {
  it('B2: lists are deduplicated and sorted, ids lowercased, blank text is no search, freshness keeps its instant', () => {
    expect(
      resolveFilter(
        {
          text: '  bearish  divergence ',
          instruments: ['SOL', 'ETH', 'SOL'],
          producerIds: [PRODUCER.toUpperCase(), PRODUCER],
          runKinds: ['TRADING', 'ANALYSIS'],
          freshness: 'STALE',
        },
        now,
      ),
    ).toEqual({
      ...EVERY_RECORD,
      text: 'bearish  divergence',
      instruments: ['ETH', 'SOL'],
      producerIds: [PRODUCER],
      runKinds: ['ANALYSIS', 'TRADING'],
      freshness: { state: 'STALE', at: now },
    });
    expect(resolveFilter({ text: ' \t ', instruments: [], producerIds: [], runKinds: [] }, now)).toEqual(
      EVERY_RECORD,
    );
  });

  it('B2: a bad value is BAD_USER_INPUT naming its field', () => {
    expect(fieldOf({ text: 'x'.repeat(201) })).toBe('text');
    expect(fieldOf({ text: 'a\u0000' })).toBe('text');
    expect(fieldOf({ instruments: ['ETH', ''] })).toBe('instruments[1]');
    expect(fieldOf({ instruments: Array.from({ length: 101 }, (_, i) => `I${i}`) })).toBe('instruments');
    expect(fieldOf({ producerIds: [PRODUCER, 'nope'] })).toBe('producerIds[1]');
    expect(fieldOf({ runKinds: ['SCALPING' as never] })).toBe('runKinds[0]');
    expect(fieldOf({ freshness: 'OLD' as never })).toBe('freshness');
    expect(fieldOf({ text: 'x'.repeat(200) })).toBeUndefined();
  });

  it('B11: a search text holds at most 16 words — runs of letters or digits, `or` not counted — and 200 characters', () => {
    const words = (n: number, between = ' ') => Array.from({ length: n }, (_, i) => `w${i}`).join(between);
    expect(fieldOf({ text: words(16) })).toBeUndefined();
    expect(fieldOf({ text: words(17) })).toBe('text');
    expect(fieldOf({ text: `"${words(8)}" -${words(8, ' -')}` })).toBeUndefined(); // quotes, exclusions
    expect(fieldOf({ text: words(16, ' or ') })).toBeUndefined(); // `or` is the operator
    expect(fieldOf({ text: words(17, '-') })).toBe('text'); // punctuation parts words, as the parser does
    expect(fieldOf({ text: words(17, '.') })).toBe('text');
    expect(fieldOf({ text: 'שלום é 東京 ١٢٣ '.repeat(4) })).toBeUndefined(); // 16 words in any script
    expect(fieldOf({ text: 'שלום é 東京 ١٢٣ '.repeat(4) + 'x' })).toBe('text');
    expect(fieldOf({ text: '- " ! & | ( ) : * < > '.repeat(9) })).toBeUndefined(); // no words at all
    expect(() => resolveFilter({ text: words(20) }, now)).toThrow(/at most 16 words.*20/);
  });

  it('B2: memoryTypes takes window or filter.window, never both', () => {
    const window = { rolling: 'LAST_1H' } as const;
    expect(resolveTypeCountFilter({ text: 'x' }, window, now)).toEqual(
      resolveFilter({ text: 'x', window }, now),
    );
    expect(resolveTypeCountFilter({ window }, null, now)).toEqual(resolveFilter({ window }, now));
    expect(() => resolveTypeCountFilter({ window }, window, now)).toThrow(InputError);
  });
});

describe('matchesFilter (B2, B5)', () => {
  const clock = () => now;
  const matches = (filter: MemoryFilterArgs, facts = record) =>
    matchesFilter(facts, resolveFilter(filter, now), clock);

  it('B2: instruments match any target; agent-wide records match none', () => {
    expect(matches({ instruments: ['SOL', 'BTC'] })).toBe(true);
    expect(matches({ instruments: ['SOL'] })).toBe(false);
    expect(matches({ instruments: ['ETH'] }, imported)).toBe(false);
  });

  it('B2: producers and run kinds; records without provenance match neither', () => {
    expect(matches({ producerIds: [PRODUCER.toUpperCase()] })).toBe(true);
    expect(matches({ producerIds: ['0000000b-0000-4000-8000-000000000001'] })).toBe(false);
    expect(matches({ producerIds: [PRODUCER] }, imported)).toBe(false);
    expect(matches({ runKinds: ['REVIEW', 'ANALYSIS'] })).toBe(true);
    expect(matches({ runKinds: ['TRADING'] })).toBe(false);
    expect(matches({ runKinds: ['ANALYSIS'] }, imported)).toBe(false);
  });

  it('B2: freshness is evaluated by the clock when the record arrives, and only then', () => {
    let reads = 0;
    const later = () => (reads++, new Date('2026-09-01T10:05:00.000Z'));
    const fresh = resolveFilter({ freshness: 'FRESH' }, now);
    const stale = resolveFilter({ freshness: 'STALE' }, now);
    expect(matchesFilter(record, fresh, clock)).toBe(true);
    expect(matchesFilter(record, fresh, later)).toBe(false); // expired exactly at expiresAt
    expect(matchesFilter(record, stale, later)).toBe(true);
    expect(matchesFilter(imported, stale, later)).toBe(false); // never expires
    expect(reads).toBe(3);
    matchesFilter(record, resolveFilter({ types: ['ema_handoff'] }, now), later);
    expect(reads).toBe(3); // no freshness, no clock
  });

  it('B11: text is left to the database; every other field must hold', () => {
    expect(matches({ text: 'anything at all' })).toBe(true);
    expect(
      matches({ types: ['ema_handoff'], instruments: ['ETH'], runKinds: ['ANALYSIS'], freshness: 'FRESH' }),
    ).toBe(true);
    expect(matches({ types: ['ema_handoff'], instruments: ['ETH'], runKinds: ['TRADING'] })).toBe(false);
  });
});

describe('filterDigest (B4, B2)', () => {
  const agent = '0000000c-0000-4000-8000-000000000001';

  it('B4: a filter without the new fields digests as before they existed (older cursors keep working)', () => {
    const before = (types: string[] | null) =>
      createHash('sha256')
        .update(JSON.stringify({ agentId: agent, types, window: null }))
        .digest('hex')
        .slice(0, 16);
    expect(filterDigest(agent, { types: ['b', 'a'] })).toBe(before(['a', 'b']));
    expect(filterDigest(agent, { text: ' ', instruments: [] })).toBe(before(null));
  });

  it('B2: every field changes the digest; equal filters written differently do not', () => {
    const base = filterDigest(agent, {});
    const variants: MemoryFilterArgs[] = [
      { text: 'bearish' },
      { instruments: ['ETH'] },
      { producerIds: [PRODUCER] },
      { runKinds: ['ANALYSIS'] },
      { freshness: 'FRESH' },
      { freshness: 'STALE' },
    ];
    const digests = variants.map((filter) => filterDigest(agent, filter));
    expect(new Set([base, ...digests]).size).toBe(variants.length + 1);
    expect(filterDigest(agent, { text: ' bearish ', instruments: ['SOL', 'ETH', 'SOL'] })).toBe(
      filterDigest(agent, { text: 'bearish', instruments: ['ETH', 'SOL'] }),
    );
    expect(filterDigest(agent, { producerIds: [PRODUCER.toUpperCase()] })).toBe(digests[2]);
  });
});

// B2: the browse filter as SQL. A named statement must keep one text per name (pg
// prepares it once per connection), so every combination of filter fields is checked here: equal
// variants mean equal texts and different texts different variants; a search is never named.
import { describe, expect, it } from 'vitest';
import { EVERY_RECORD, type ResolvedFilter } from '../../src/domain/memory-filter.js';
import { filterSql, parameters } from '../../src/store/filter-sql.js';

const at = new Date('2026-09-01T10:00:00Z');
const window = (rolling: boolean) => ({ from: new Date(at.getTime() - 3_600_000), to: at, rolling });

const CHOICES: { [K in keyof ResolvedFilter]: ResolvedFilter[K][] } = {
  types: [null, ['a'], ['a', 'b']],
  window: [null, window(true), window(false)],
  text: [null, 'bearish'],
  instruments: [null, ['ETH'], ['BTC', 'ETH']],
  producerIds: [null, ['00000000-0000-4000-8000-000000000001']],
  runKinds: [null, ['ANALYSIS']],
  freshness: [null, { state: 'FRESH', at }, { state: 'STALE', at }],
};

/** Every combination of the choices above. */
function* filters(): Generator<ResolvedFilter> {
  const keys = Object.keys(CHOICES) as (keyof ResolvedFilter)[];
  const walk = function* (index: number, built: ResolvedFilter): Generator<ResolvedFilter> {
    if (index === keys.length) return yield built;
    const key = keys[index]!;
    for (const choice of CHOICES[key]) yield* walk(index + 1, { ...built, [key]: choice });
  };
  yield* walk(0, EVERY_RECORD);
}

const sqlOf = (filter: ResolvedFilter, mode: 'list' | 'live') => {
  const { param } = parameters();
  return filterSql('agent', filter, mode, param);
};

describe('filterSql (B2)', () => {
  it('B2: every named statement text has its own variant; value-dependent ones none', () => {
    const textOf = new Map<string, string>();
    const variantOf = new Map<string, string>();
    let combinations = 0;
    for (const filter of filters()) {
      for (const mode of ['list', 'live'] as const) {
        combinations++;
        const { where, variant } = sqlOf(filter, mode);
        const text = where.join(' AND ');
        // A statement whose best plan depends on its values is unnamed (planned with them).
        const valueDependent =
          filter.text !== null ||
          (filter.types?.length ?? 0) > 1 ||
          filter.instruments !== null ||
          filter.producerIds !== null;
        if (valueDependent) {
          expect(variant).toBeNull();
          continue;
        }
        expect(variant).toMatch(/^[a-zA-Z]+$/);
        expect(textOf.get(variant!) ?? text, variant!).toBe(text);
        expect(variantOf.get(text) ?? variant, text).toBe(variant);
        textOf.set(variant!, text);
        variantOf.set(text, variant!);
      }
    }
    expect(combinations).toBe(3 * 3 * 2 * 3 * 2 * 2 * 3 * 2);
    // Lists of different lengths share a text (the values are parameters).
    expect(sqlOf({ ...EVERY_RECORD, runKinds: ['ANALYSIS'] }, 'list').variant).toBe(
      sqlOf({ ...EVERY_RECORD, runKinds: ['ANALYSIS', 'TRADING'] }, 'list').variant,
    );
    // The named texts: one type or none × no window, rolling (live) or bounded × run kinds or not ×
    // any, fresh or stale — 2 × 3 × 2 × 3.
    expect(textOf.size).toBe(36);
  });

  it('B2: values travel as parameters, never in the text', () => {
    const { values, param } = parameters();
    const { where } = filterSql(
      'agent',
      {
        ...EVERY_RECORD,
        text: `'; DROP TABLE "Memory"; --`,
        instruments: [`ETH'`],
        producerIds: ['00000000-0000-4000-8000-000000000001'],
        runKinds: ['TRADING'],
        freshness: { state: 'STALE', at },
      },
      'list',
      param,
    );
    const text = where.join(' AND ');
    expect(text).not.toContain('DROP');
    expect(text).not.toContain(`ETH'`);
    expect(values).toEqual([
      'agent',
      `'; DROP TABLE "Memory"; --`,
      [`ETH'`],
      ['00000000-0000-4000-8000-000000000001'],
      ['TRADING'],
      at,
    ]);
  });
});

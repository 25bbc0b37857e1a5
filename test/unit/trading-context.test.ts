import { describe, expect, it } from 'vitest';
import {
  compareNewestFirst,
  decideTradingContext,
  selectLatestPerGroup,
  type ContextCandidate,
  type CorrectionCandidate,
} from '../../src/domain/trading-context.js';

const at = new Date('2026-09-30T12:00:00Z');
const t = (hhmm: string): Date => new Date(`2026-09-30T${hhmm}:00Z`);
const uuid = (n: number): string => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

function entry(n: number, overrides: Partial<ContextCandidate> = {}): ContextCandidate {
  return {
    id: uuid(n),
    producerId: 'p1',
    type: 'market_structure',
    scope: 'INSTRUMENTS',
    createdAt: t('11:00'),
    expiresAt: t('13:00'),
    ...overrides,
  };
}

function correction(
  n: number,
  targets: string[],
  overrides: Partial<CorrectionCandidate> = {},
): CorrectionCandidate {
  return { ...entry(n, { type: 'correction' }), correctionTargetIds: targets, ...overrides };
}

const allEnabled = (): boolean => true;

describe('latest per group (C2)', () => {
  it('C2: keeps only the latest record of each (producer, type, scope)', () => {
    const kept = selectLatestPerGroup([
      entry(1, { createdAt: t('10:00') }),
      entry(2, { createdAt: t('11:00') }),
      entry(3, { createdAt: t('10:30'), scope: 'AGENT' }),
      entry(4, { createdAt: t('09:00'), type: 'funding' }),
    ]);
    expect(kept.map((k) => k.id).sort()).toEqual([uuid(2), uuid(3), uuid(4)]);
  });

  it('C2: equal createdAt ⇒ the greater id wins, regardless of input order', () => {
    const a = entry(0xa, { id: 'aaaaaaaa-0000-4000-8000-000000000000' });
    const b = entry(0xb, { id: 'BBBBBBBB-0000-4000-8000-000000000000' });
    expect(selectLatestPerGroup([a, b])).toEqual([b]);
    expect(selectLatestPerGroup([b, a])).toEqual([b]);
  });

  it('C2: compareNewestFirst orders by createdAt desc then id desc', () => {
    const items = [
      { createdAt: t('10:00'), id: uuid(9) },
      { createdAt: t('11:00'), id: uuid(1) },
      { createdAt: t('11:00'), id: uuid(2) },
    ];
    expect([...items].sort(compareNewestFirst).map((i) => i.id)).toEqual([uuid(2), uuid(1), uuid(9)]);
    expect(compareNewestFirst(items[0]!, items[0]!)).toBe(0);
  });
});

describe('entry status and projection (C3, C4)', () => {
  it('C3: a disabled producer yields DISABLED even when the record is fresh', () => {
    const r = decideTradingContext({
      at,
      candidates: [entry(1, { producerId: 'off' }), entry(2)],
      corrections: [],
      enabledAt: (p) => p !== 'off',
    });
    const byId = new Map(r.entries.map((e) => [e.record.id, e]));
    expect(byId.get(uuid(1))).toMatchObject({ status: 'DISABLED', withResearch: false });
    expect(byId.get(uuid(2))).toMatchObject({ status: 'FRESH', withResearch: true });
  });

  it('C3: DISABLED takes precedence over STALE', () => {
    const r = decideTradingContext({
      at,
      candidates: [entry(1, { expiresAt: t('11:30') })],
      corrections: [],
      enabledAt: () => false,
    });
    expect(r.entries[0]?.status).toBe('DISABLED');
  });

  it('C3: expiry exactly at `at` is STALE; no expiry is FRESH', () => {
    const r = decideTradingContext({
      at,
      candidates: [entry(1, { expiresAt: at }), entry(2, { producerId: 'p2', expiresAt: null })],
      corrections: [],
      enabledAt: allEnabled,
    });
    const byId = new Map(r.entries.map((e) => [e.record.id, e.status]));
    expect(byId.get(uuid(1))).toBe('STALE');
    expect(byId.get(uuid(2))).toBe('FRESH');
  });

  it('C2/C3: a newer stale record hides an older fresh one of the same group', () => {
    const r = decideTradingContext({
      at,
      candidates: [entry(1, { createdAt: t('09:00'), expiresAt: null }), entry(2, { expiresAt: t('11:30') })],
      corrections: [],
      enabledAt: allEnabled,
    });
    expect(r.entries).toHaveLength(1);
    expect(r.entries[0]).toMatchObject({ record: { id: uuid(2) }, status: 'STALE', withResearch: false });
  });

  it('C4: FRESH first, then the rest; newest first inside each part; ties ⇒ greater id first', () => {
    const r = decideTradingContext({
      at,
      candidates: [
        entry(1, { producerId: 'a', createdAt: t('11:50'), expiresAt: t('11:55') }), // stale, newest
        entry(2, { producerId: 'b', createdAt: t('10:00') }), // fresh, old
        entry(3, { producerId: 'c', createdAt: t('11:00') }), // fresh, tie with 4
        entry(4, { producerId: 'd', createdAt: t('11:00') }), // fresh, tie with 3, greater id
        entry(5, { producerId: 'off', createdAt: t('11:40') }), // disabled
        entry(6, { producerId: 'e', createdAt: t('11:40'), expiresAt: t('11:45') }), // stale, tie with 5
      ],
      corrections: [],
      enabledAt: (p) => p !== 'off',
    });
    expect(r.entries.map((e) => [e.record.id, e.status])).toEqual([
      [uuid(4), 'FRESH'],
      [uuid(3), 'FRESH'],
      [uuid(2), 'FRESH'],
      [uuid(1), 'STALE'],
      [uuid(6), 'STALE'],
      [uuid(5), 'DISABLED'],
    ]);
    expect(r.entries.map((e) => e.withResearch)).toEqual([true, true, true, false, false, false]);
  });

  it('C5: nothing at all is an empty, valid answer', () => {
    expect(decideTradingContext({ at, candidates: [], corrections: [], enabledAt: allEnabled })).toEqual({
      entries: [],
      corrections: [],
    });
  });
});

describe('corrections (C6–C8)', () => {
  it('C8: two producers that disagree both stay visible, and a correction does not hide its original', () => {
    const r = decideTradingContext({
      at,
      candidates: [entry(1, { producerId: 'bull' }), entry(2, { producerId: 'bear' })],
      corrections: [correction(3, [uuid(1)], { producerId: 'bear' })],
      enabledAt: allEnabled,
    });
    expect(r.entries.map((e) => e.record.id).sort()).toEqual([uuid(1), uuid(2)]);
    expect(r.entries.every((e) => e.status === 'FRESH')).toBe(true);
    expect(r.corrections).toHaveLength(1);
    expect(r.corrections[0]).toMatchObject({
      status: 'FRESH',
      withResearch: true,
      correctionTargetIds: [uuid(1)],
    });
  });

  it('C6: a correction whose type name changed between versions is still grouped; only the latest is kept', () => {
    const r = decideTradingContext({
      at,
      candidates: [entry(1)],
      corrections: [
        correction(2, [uuid(1)], { type: 'correction', createdAt: t('11:10') }),
        correction(3, [uuid(1)], { type: 'erratum_v2', createdAt: t('11:20') }),
      ],
      enabledAt: allEnabled,
    });
    expect(r.corrections.map((c) => c.record.id)).toEqual([uuid(3)]);
  });

  it('C6: the target set is compared sorted and de-duplicated', () => {
    const r = decideTradingContext({
      at,
      candidates: [entry(1), entry(2, { producerId: 'p2' })],
      corrections: [
        correction(3, [uuid(2), uuid(1)], { createdAt: t('11:10') }),
        correction(4, [uuid(1), uuid(2), uuid(1)], { createdAt: t('11:20') }),
      ],
      enabledAt: allEnabled,
    });
    expect(r.corrections).toHaveLength(1);
    expect(r.corrections[0]?.record.id).toBe(uuid(4));
    expect(r.corrections[0]?.correctionTargetIds).toEqual([uuid(1), uuid(2)]);
  });

  it('C6: different producers, scopes or target sets form separate groups', () => {
    const r = decideTradingContext({
      at,
      candidates: [entry(1), entry(2, { producerId: 'p2' })],
      corrections: [
        correction(3, [uuid(1)]),
        correction(4, [uuid(1)], { producerId: 'p2' }),
        correction(5, [uuid(1)], { scope: 'AGENT' }),
        correction(6, [uuid(1), uuid(2)]),
      ],
      enabledAt: allEnabled,
    });
    expect(r.corrections).toHaveLength(4);
  });

  it('C6: equal createdAt inside a correction group ⇒ the greater id is kept', () => {
    const r = decideTradingContext({
      at,
      candidates: [entry(1)],
      corrections: [correction(7, [uuid(1)]), correction(6, [uuid(1)])],
      enabledAt: allEnabled,
    });
    expect(r.corrections.map((c) => c.record.id)).toEqual([uuid(7)]);
  });

  it('C11: a correction of a replaced original leaves the context (it is not listed SUPERSEDED)', () => {
    const r = decideTradingContext({
      at,
      candidates: [entry(1, { createdAt: t('10:00') }), entry(2, { createdAt: t('11:30') })],
      corrections: [correction(3, [uuid(1)], { createdAt: t('11:00'), expiresAt: t('14:00') })],
      enabledAt: allEnabled,
    });
    expect(r.entries.map((e) => e.record.id)).toEqual([uuid(2)]);
    expect(r.corrections).toEqual([]);
  });

  it('C11: a correction stays while ONE of its originals is kept, and is never longer than the entries', () => {
    const r = decideTradingContext({
      at,
      // uuid(1) replaced by uuid(2) in group a; uuid(5) kept (stale) in group b.
      candidates: [
        entry(1, { producerId: 'a', createdAt: t('10:00') }),
        entry(2, { producerId: 'a', createdAt: t('11:30') }),
        entry(5, { producerId: 'b', expiresAt: t('11:00') }),
      ],
      corrections: [
        correction(3, [uuid(1), uuid(5)], { producerId: 'fix-1' }), // one original kept (stale) ⇒ SUPERSEDED (C7)
        correction(4, [uuid(1)], { producerId: 'fix-2' }), // its only original replaced ⇒ gone (C11)
        ...Array.from({ length: 20 }, (_, i) =>
          correction(100 + i, [uuid(50 + i)], { producerId: `old-${i}` }),
        ),
      ],
      enabledAt: allEnabled,
    });
    expect(r.corrections.map((c) => [c.record.id, c.status])).toEqual([[uuid(3), 'SUPERSEDED']]);
    expect(r.corrections.length).toBeLessThanOrEqual(r.entries.length);
  });

  it('C7: a correction whose only original is stale or disabled is SUPERSEDED', () => {
    for (const [expiresAt, enabled] of [
      [t('11:30'), true],
      [t('13:00'), false],
    ] as const) {
      const r = decideTradingContext({
        at,
        candidates: [entry(1, { expiresAt })],
        corrections: [correction(2, [uuid(1)], { producerId: 'fixer' })],
        enabledAt: (p) => p === 'fixer' || enabled,
      });
      expect(r.corrections[0]?.status).toBe('SUPERSEDED');
    }
  });

  it('C11: a correction of an unknown id (not among the entries) is not listed', () => {
    const r = decideTradingContext({
      at,
      candidates: [entry(1)],
      corrections: [correction(2, [uuid(99)])],
      enabledAt: allEnabled,
    });
    expect(r.corrections).toEqual([]);
  });

  it('C7: own expiry passed while an original is still current ⇒ STALE without body', () => {
    const r = decideTradingContext({
      at,
      candidates: [entry(1)],
      corrections: [correction(2, [uuid(1)], { expiresAt: t('11:59') })],
      enabledAt: allEnabled,
    });
    expect(r.corrections[0]).toMatchObject({ status: 'STALE', withResearch: false, expiresAt: t('11:59') });
  });

  it('C7: reported expiresAt is capped by the latest expiry among current originals', () => {
    const r = decideTradingContext({
      at,
      candidates: [
        entry(1, { producerId: 'a', expiresAt: t('12:30') }),
        entry(2, { producerId: 'b', expiresAt: t('12:45') }),
        entry(3, { producerId: 'c', expiresAt: t('11:00') }), // stale: not current, its expiry is ignored
      ],
      corrections: [correction(4, [uuid(1), uuid(2), uuid(3)], { expiresAt: t('15:00') })],
      enabledAt: allEnabled,
    });
    expect(r.corrections[0]).toMatchObject({ status: 'FRESH', expiresAt: t('12:45') });
  });

  it('C7: own expiry earlier than the originals is kept', () => {
    const r = decideTradingContext({
      at,
      candidates: [entry(1, { expiresAt: t('13:00') })],
      corrections: [correction(2, [uuid(1)], { expiresAt: t('12:15') })],
      enabledAt: allEnabled,
    });
    expect(r.corrections[0]?.expiresAt).toEqual(t('12:15'));
  });

  it('C7: null means never — an original without expiry leaves the own expiry, both null stay null', () => {
    const withOwn = decideTradingContext({
      at,
      candidates: [entry(1, { expiresAt: null })],
      corrections: [correction(2, [uuid(1)], { expiresAt: t('12:20') })],
      enabledAt: allEnabled,
    });
    expect(withOwn.corrections[0]?.expiresAt).toEqual(t('12:20'));
    const neither = decideTradingContext({
      at,
      candidates: [entry(1, { expiresAt: null })],
      corrections: [correction(2, [uuid(1)], { expiresAt: null })],
      enabledAt: allEnabled,
    });
    expect(neither.corrections[0]).toMatchObject({ status: 'FRESH', expiresAt: null });
    const ownNull = decideTradingContext({
      at,
      candidates: [entry(1, { expiresAt: t('12:40') })],
      corrections: [correction(2, [uuid(1)], { expiresAt: null })],
      enabledAt: allEnabled,
    });
    expect(ownNull.corrections[0]?.expiresAt).toEqual(t('12:40'));
  });

  it('C4/C7: corrections are ordered FRESH first, then newest first, ties ⇒ greater id', () => {
    const r = decideTradingContext({
      at,
      candidates: [
        entry(1, { producerId: 'a' }),
        entry(2, { producerId: 'b' }),
        entry(3, { producerId: 'c', expiresAt: t('11:00') }),
      ],
      corrections: [
        correction(10, [uuid(3)], { createdAt: t('11:59') }), // superseded (its original is stale), newest
        correction(11, [uuid(1)], { createdAt: t('11:00') }),
        correction(12, [uuid(2)], { createdAt: t('11:00') }),
        correction(13, [uuid(1), uuid(2)], { createdAt: t('11:30'), expiresAt: t('11:45') }), // stale
      ],
      enabledAt: allEnabled,
    });
    expect(r.corrections.map((c) => [c.record.id, c.status])).toEqual([
      [uuid(12), 'FRESH'],
      [uuid(11), 'FRESH'],
      [uuid(10), 'SUPERSEDED'],
      [uuid(13), 'STALE'],
    ]);
  });

  it('C8: originals are not modified by deciding corrections', () => {
    const original = entry(1);
    const copy = structuredClone(original);
    decideTradingContext({
      at,
      candidates: [original],
      corrections: [correction(2, [uuid(1)])],
      enabledAt: allEnabled,
    });
    expect(original).toEqual(copy);
  });
});

import { describe, expect, it } from 'vitest';
import {
  ANALYSIS_POLICY,
  evaluateStoredExpiry,
  freshnessAt,
  parseStrictInstant,
  stampWriteExpiry,
  type WriteExpiryInput,
} from '../../src/domain/expiry.js';
import { SCHEDULES, isSchedule, scheduleMs } from '../../src/domain/schedule.js';
import type { JsonObject } from '../../src/domain/types.js';

const z = (s: string): Date => new Date(s);

function analysis(overrides: Partial<WriteExpiryInput>): WriteExpiryInput {
  return {
    kind: 'ANALYSIS',
    schedule: null,
    evidenceBoundary: null,
    publishedAt: z('2026-09-30T12:00:00Z'),
    metadata: {},
    ...overrides,
  };
}

function stamped(input: WriteExpiryInput): {
  metadata: JsonObject;
  expiresAt: Date | null;
  expiryPolicy: string | null;
} {
  const result = stampWriteExpiry(input);
  if (!result.ok) throw new Error(`unexpected error ${result.error.field}`);
  return result;
}

describe('worked examples (spec §3)', () => {
  it('X1/X2: ANALYSIS 5m boundary 12:00 written 12:01:10 overwrites stale_after and drops valid_for_seconds', () => {
    const input = analysis({
      schedule: '5m',
      evidenceBoundary: z('2026-09-30T12:00:00Z'),
      publishedAt: z('2026-09-30T12:01:10Z'),
      metadata: { stale_after: '2030-01-01T00:00:00Z', valid_for_seconds: 'abc' },
    });
    const r = stamped(input);
    expect(r.metadata).toEqual({ stale_after: '2026-09-30T12:10:00.000Z', expiry_policy: ANALYSIS_POLICY });
    expect(r.metadata).not.toHaveProperty('valid_for_seconds');
    expect(r.expiresAt).toEqual(z('2026-09-30T12:10:00Z'));
    expect(r.expiryPolicy).toBe('analysis_schedule_v2');
  });

  it('X2: ANALYSIS 4h boundary 08:00 written 08:03 with timeframe 15m expires 16:00 (timeframe ignored)', () => {
    const r = stamped(
      analysis({
        schedule: '4h',
        evidenceBoundary: z('2026-09-30T08:00:00Z'),
        publishedAt: z('2026-09-30T08:03:00Z'),
      }),
    );
    expect(r.metadata.stale_after).toBe('2026-09-30T16:00:00.000Z');
    expect(r.expiresAt).toEqual(z('2026-09-30T16:00:00Z'));
  });

  it('X4: ANALYSIS 15m boundary 12:00 written 12:31 is stored already stale (12:30)', () => {
    const publishedAt = z('2026-09-30T12:31:00Z');
    const r = stamped(
      analysis({ schedule: '15m', evidenceBoundary: z('2026-09-30T12:00:00Z'), publishedAt }),
    );
    expect(r.metadata.stale_after).toBe('2026-09-30T12:30:00.000Z');
    expect(freshnessAt(r.expiresAt, publishedAt)).toBe('STALE');
  });

  it('X3: unscheduled ANALYSIS written 09:00 with expiry_policy "mine" expires 09:30 with policy v2', () => {
    const r = stamped(
      analysis({ publishedAt: z('2026-09-30T09:00:00Z'), metadata: { expiry_policy: 'mine' } }),
    );
    expect(r.metadata).toEqual({
      stale_after: '2026-09-30T09:30:00.000Z',
      expiry_policy: 'analysis_schedule_v2',
    });
    expect(r.expiresAt).toEqual(z('2026-09-30T09:30:00Z'));
    expect(r.expiryPolicy).toBe(ANALYSIS_POLICY);
  });

  it('X6: TRADING written 10:00 with valid_for_seconds 600 expires 10:10', () => {
    const r = stamped({
      kind: 'TRADING',
      schedule: null,
      evidenceBoundary: null,
      publishedAt: z('2026-09-30T10:00:00Z'),
      metadata: { valid_for_seconds: 600 },
    });
    expect(r.expiresAt).toEqual(z('2026-09-30T10:10:00Z'));
    expect(r.expiryPolicy).toBe('explicit_valid_for');
    expect(r.metadata).toEqual({ valid_for_seconds: 600 });
  });

  it('X6: TRADING with stale_after "yesterday" is a validation error on metadata.stale_after', () => {
    const r = stampWriteExpiry({
      kind: 'TRADING',
      schedule: null,
      evidenceBoundary: null,
      publishedAt: z('2026-09-30T10:00:00Z'),
      metadata: { stale_after: 'yesterday' },
    });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.field).toBe('metadata.stale_after');
  });

  it('X9: legacy import with provenance and timeframe 1h created 06:00 expires 08:00', () => {
    const r = evaluateStoredExpiry({
      metadata: {},
      createdAt: z('2026-09-30T06:00:00Z'),
      timeframe: '1h',
      hasProvenance: true,
    });
    expect(r).toEqual({ expiresAt: z('2026-09-30T08:00:00Z'), expiryPolicy: 'legacy_timeframe' });
  });

  it('X10: legacy import without provenance created 06:00 never expires', () => {
    const r = evaluateStoredExpiry({
      metadata: {},
      createdAt: z('2026-09-30T06:00:00Z'),
      timeframe: '1h',
      hasProvenance: false,
    });
    expect(r).toEqual({ expiresAt: null, expiryPolicy: null });
  });
});

describe('analysis stamping (X1–X5)', () => {
  it('X5: the write returns stale_after and expiry_policy in metadata matching the top-level expiresAt', () => {
    const r = stamped(analysis({ schedule: '1h', evidenceBoundary: z('2026-09-30T12:00:00Z') }));
    expect(r.metadata.stale_after).toBe(r.expiresAt?.toISOString());
    expect(r.metadata.expiry_policy).toBe(r.expiryPolicy);
  });

  it('X5: stamping returns a new object and does not mutate the caller metadata', () => {
    const metadata = { valid_for_seconds: 60, note: 'x' };
    const r = stamped(analysis({ metadata }));
    expect(metadata).toEqual({ valid_for_seconds: 60, note: 'x' });
    expect(r.metadata).not.toBe(metadata);
    expect(r.metadata.note).toBe('x');
  });

  it('X1: malformed caller values are never an error for Analysis', () => {
    for (const metadata of [
      { stale_after: 42 },
      { stale_after: 'tomorrow', valid_for_seconds: -5 },
      { valid_for_seconds: 1e12 },
      { expiry_policy: { nested: true } },
      { stale_after: null, valid_for_seconds: null },
    ]) {
      const r = stampWriteExpiry(analysis({ metadata }));
      expect(r.ok).toBe(true);
      if (r.ok) {
        expect(r.metadata.stale_after).toBe('2026-09-30T12:30:00.000Z');
        expect(r.metadata).not.toHaveProperty('valid_for_seconds');
      }
    }
  });

  it('X1: a deadline written in prose or in unrelated keys has no effect', () => {
    const r = stamped(
      analysis({ metadata: { deadline: 'valid until 2030', stale: '2030-01-01T00:00:00Z' } }),
    );
    expect(r.expiresAt).toEqual(z('2026-09-30T12:30:00Z'));
  });

  it('X3: a schedule without an evidence boundary is treated as unscheduled', () => {
    const r = stamped(
      analysis({ schedule: '1h', evidenceBoundary: null, publishedAt: z('2026-09-30T09:00:00Z') }),
    );
    expect(r.expiresAt).toEqual(z('2026-09-30T09:30:00Z'));
  });

  it('X3: an unknown schedule string is treated as unscheduled', () => {
    const r = stamped(
      analysis({
        schedule: '7m',
        evidenceBoundary: z('2026-09-30T08:00:00Z'),
        publishedAt: z('2026-09-30T09:00:00Z'),
      }),
    );
    expect(r.expiresAt).toEqual(z('2026-09-30T09:30:00Z'));
  });

  it('X2: publication latency does not move a scheduled expiry', () => {
    const boundary = z('2026-09-30T12:00:00Z');
    const early = stamped(
      analysis({ schedule: '5m', evidenceBoundary: boundary, publishedAt: z('2026-09-30T12:00:01Z') }),
    );
    const late = stamped(
      analysis({ schedule: '5m', evidenceBoundary: boundary, publishedAt: z('2026-09-30T13:00:00Z') }),
    );
    expect(early.expiresAt).toEqual(late.expiresAt);
  });

  const expectedSpan: Record<string, string> = {
    '1m': '2026-09-30T12:02:00.000Z',
    '3m': '2026-09-30T12:06:00.000Z',
    '5m': '2026-09-30T12:10:00.000Z',
    '15m': '2026-09-30T12:30:00.000Z',
    '30m': '2026-09-30T13:00:00.000Z',
    '1h': '2026-09-30T14:00:00.000Z',
    '2h': '2026-09-30T16:00:00.000Z',
    '4h': '2026-09-30T20:00:00.000Z',
    '8h': '2026-10-01T04:00:00.000Z',
    '12h': '2026-10-01T12:00:00.000Z',
    '1d': '2026-10-02T12:00:00.000Z',
  };
  for (const schedule of SCHEDULES) {
    it(`X2: schedule ${schedule} expires at boundary + 2 × interval`, () => {
      const boundary = z('2026-09-30T12:00:00Z');
      const r = stamped(
        analysis({ schedule, evidenceBoundary: boundary, publishedAt: z('2026-09-30T12:00:30Z') }),
      );
      expect(r.metadata.stale_after).toBe(expectedSpan[schedule]);
      expect(r.expiresAt?.getTime()).toBe(boundary.getTime() + 2 * scheduleMs(schedule));
      expect(isSchedule(schedule)).toBe(true);
    });
  }

  it('X2: isSchedule rejects values outside the candle list', () => {
    for (const s of ['', '2m', '1w', '1H', '60m', 'constructor']) expect(isSchedule(s)).toBe(false);
  });
});

describe('explicit validity for TRADING and REVIEW (X6)', () => {
  const base = (metadata: JsonObject, kind: 'TRADING' | 'REVIEW' = 'TRADING'): WriteExpiryInput => ({
    kind,
    schedule: '5m',
    evidenceBoundary: z('2026-01-01T09:55:00Z'),
    publishedAt: z('2026-01-01T10:00:00Z'),
    metadata,
  });

  it('X6: neither field ⇒ no expiry and no policy; metadata stored unchanged', () => {
    const r = stamped(base({ note: 'flat' }));
    expect(r).toEqual({ ok: true, metadata: { note: 'flat' }, expiresAt: null, expiryPolicy: null });
  });

  it('X6: REVIEW with a Z stale_after keeps it and reports explicit_stale_after', () => {
    const r = stamped(base({ stale_after: '2026-01-01T10:00:00Z' }, 'REVIEW'));
    expect(r.expiresAt).toEqual(z('2026-01-01T10:00:00Z'));
    expect(r.expiryPolicy).toBe('explicit_stale_after');
    expect(r.metadata).toEqual({ stale_after: '2026-01-01T10:00:00Z' });
  });

  it('X6: a stale_after with a numeric offset and fraction is accepted', () => {
    const r = stamped(base({ stale_after: '2026-01-01T10:00:00.123+02:00' }));
    expect(r.expiresAt).toEqual(z('2026-01-01T08:00:00.123Z'));
  });

  it('X6: both given ⇒ stale_after wins', () => {
    const r = stamped(base({ stale_after: '2026-01-01T12:00:00Z', valid_for_seconds: 60 }));
    expect(r.expiresAt).toEqual(z('2026-01-01T12:00:00Z'));
    expect(r.expiryPolicy).toBe('explicit_stale_after');
  });

  it('X6: both given ⇒ both validated (bad valid_for_seconds still fails)', () => {
    const r = stampWriteExpiry(base({ stale_after: '2026-01-01T12:00:00Z', valid_for_seconds: 0 }));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.field).toBe('metadata.valid_for_seconds');
  });

  it('X6: valid_for_seconds counts from publication, not from the evidence boundary', () => {
    const r = stamped(base({ valid_for_seconds: 31_536_000 }));
    expect(r.expiresAt).toEqual(z('2027-01-01T10:00:00Z'));
  });

  for (const bad of [
    'yesterday',
    1767261600000,
    '2026-01-01',
    '2026-01-01T10:00:00',
    '10:00:00Z',
    '2026-02-30T10:00:00Z',
    '2026-01-01T24:00:00Z',
    '2026-01-01T10:00:00+0200',
    '2026-01-01 10:00:00Z',
    '',
    null,
    true,
    {},
  ]) {
    it(`X6: stale_after ${JSON.stringify(bad)} is a validation error`, () => {
      const r = stampWriteExpiry(base({ stale_after: bad }));
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.error.field).toBe('metadata.stale_after');
        expect(r.error.message).toMatch(/ISO-8601/);
      }
    });
  }

  for (const bad of [0, -1, 1.5, 31_536_001, '600', null, Number.NaN, Infinity]) {
    it(`X6: valid_for_seconds ${String(bad)} is a validation error`, () => {
      const r = stampWriteExpiry(base({ valid_for_seconds: bad }, 'REVIEW'));
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.field).toBe('metadata.valid_for_seconds');
    });
  }

  it('X6: valid_for_seconds of 1 is the smallest accepted value', () => {
    expect(stamped(base({ valid_for_seconds: 1 })).expiresAt).toEqual(z('2026-01-01T10:00:01Z'));
  });

  it('X6: parseStrictInstant accepts minute precision with an offset', () => {
    expect(parseStrictInstant('2026-01-01T10:00-05:00')).toEqual(z('2026-01-01T15:00:00Z'));
  });
});

describe('stored records (X7–X10)', () => {
  const createdAt = z('2026-09-30T06:00:00Z');

  it('X7: a stored stale_after is the expiry and the stored expiry_policy label is kept', () => {
    const r = evaluateStoredExpiry({
      metadata: { stale_after: '2026-09-30T06:10:00Z', expiry_policy: 'analysis_schedule_v1' },
      createdAt,
      timeframe: '1d',
      hasProvenance: true,
    });
    expect(r).toEqual({ expiresAt: z('2026-09-30T06:10:00Z'), expiryPolicy: 'analysis_schedule_v1' });
  });

  it('X7: stale_after without an expiry_policy label is explicit_stale_after, and wins over valid_for', () => {
    const r = evaluateStoredExpiry({
      metadata: { stale_after: '2026-09-30T07:00:00+01:00', valid_for_seconds: 60, expiry_policy: '' },
      createdAt,
      timeframe: null,
      hasProvenance: false,
    });
    expect(r).toEqual({ expiresAt: z('2026-09-30T06:00:00Z'), expiryPolicy: 'explicit_stale_after' });
  });

  it('X7: an offset-less legacy stale_after is read as UTC', () => {
    const r = evaluateStoredExpiry({
      metadata: { stale_after: '2026-09-30T06:45:00.123456' },
      createdAt,
      timeframe: null,
      hasProvenance: false,
    });
    expect(r.expiresAt).toEqual(z('2026-09-30T06:45:00.123Z'));
  });

  it('X7→X8: an unparseable stale_after falls through to valid_for_seconds', () => {
    const r = evaluateStoredExpiry({
      metadata: { stale_after: 'soon', valid_for_seconds: 900 },
      createdAt,
      timeframe: null,
      hasProvenance: true,
    });
    expect(r).toEqual({ expiresAt: z('2026-09-30T06:15:00Z'), expiryPolicy: 'explicit_valid_for' });
  });

  it('X8: valid_for_seconds counts from createdAt', () => {
    const r = evaluateStoredExpiry({
      metadata: { valid_for_seconds: 3600 },
      createdAt,
      timeframe: '15m',
      hasProvenance: false,
    });
    expect(r).toEqual({ expiresAt: z('2026-09-30T07:00:00Z'), expiryPolicy: 'explicit_valid_for' });
  });

  it('X8→X9: a non-integer valid_for_seconds falls through to the timeframe rule', () => {
    const r = evaluateStoredExpiry({
      metadata: { valid_for_seconds: '600' },
      createdAt,
      timeframe: '15m',
      hasProvenance: true,
    });
    expect(r).toEqual({ expiresAt: z('2026-09-30T06:30:00Z'), expiryPolicy: 'legacy_timeframe' });
  });

  for (const [timeframe, expected] of [
    ['15m', '2026-09-30T06:30:00Z'],
    ['1h', '2026-09-30T08:00:00Z'],
    ['1d', '2026-10-02T06:00:00Z'],
    ['5m', '2026-09-30T06:30:00Z'],
    ['4h', '2026-09-30T06:30:00Z'],
    ['constructor', '2026-09-30T06:30:00Z'],
    [null, '2026-09-30T06:30:00Z'],
  ] as const) {
    it(`X9: provenance with timeframe ${String(timeframe)} expires ${expected}`, () => {
      const r = evaluateStoredExpiry({ metadata: {}, createdAt, timeframe, hasProvenance: true });
      expect(r).toEqual({ expiresAt: z(expected), expiryPolicy: 'legacy_timeframe' });
    });
  }

  it('X10: no provenance and nothing parseable ⇒ no implicit expiry, whatever the metadata shape', () => {
    for (const metadata of [
      null,
      undefined,
      'text',
      42,
      [1, 2],
      { stale_after: 'never' },
      { valid_for_seconds: -1 },
    ]) {
      expect(evaluateStoredExpiry({ metadata, createdAt, timeframe: '1h', hasProvenance: false })).toEqual({
        expiresAt: null,
        expiryPolicy: null,
      });
    }
  });

  it('X7: evaluation never changes the stored metadata', () => {
    const metadata = { stale_after: '2026-09-30T06:10:00Z', valid_for_seconds: 60 };
    const copy = structuredClone(metadata);
    evaluateStoredExpiry({ metadata, createdAt, timeframe: null, hasProvenance: true });
    expect(metadata).toEqual(copy);
  });
});

describe('freshness', () => {
  const expiresAt = z('2026-09-30T12:10:00Z');
  it('X4: FRESH strictly before expiry', () => {
    expect(freshnessAt(expiresAt, z('2026-09-30T12:09:59.999Z'))).toBe('FRESH');
  });
  it('X4: at == expiresAt ⇒ STALE', () => {
    expect(freshnessAt(expiresAt, z('2026-09-30T12:10:00Z'))).toBe('STALE');
  });
  it('X4: after expiry ⇒ STALE', () => {
    expect(freshnessAt(expiresAt, z('2026-09-30T12:10:00.001Z'))).toBe('STALE');
  });
  it('X10: no expiry is always FRESH', () => {
    expect(freshnessAt(null, z('2100-01-01T00:00:00Z'))).toBe('FRESH');
  });
});

// The desk's view (B8, B9) without a browser: the header badge, the tab a bare address opens, the
// board's own flip to STALE at a known expiresAt (B9) and the timer that waits for it, the live
// refresh's 30 s floor, and the timeline's lanes, gaps, markers and DST-correct ticks.
import { afterAll, describe, expect, it, vi } from 'vitest';

// The timeline counts local hours: read in a zone with a DST change before the modules load (fresh
// ones: test files may share a module graph, vitest.config.ts `isolate: false`).
const zone = process.env.TZ;
process.env.TZ = 'America/New_York';
vi.resetModules();
afterAll(() => {
  // The next file in this worker runs in the zone it would have had, on modules loaded there.
  if (zone === undefined) delete process.env.TZ;
  else process.env.TZ = zone;
  vi.resetModules();
});
const health = await import('../../src/web/health.js');
const timeline = await import('../../src/web/timeline.js');
const { parseRoute, routeHash } = await import('../../src/web/route.js');

const T0 = Date.parse('2026-03-08T00:00:00-05:00');
const MIN = 60_000;
const HOUR = 60 * MIN;
const iso = (ms: number) => new Date(ms).toISOString();

describe('B8, B9: the header badge and the default tab', () => {
  it('B8: the badge counts LATE and MISSING producers only, in words', () => {
    expect(health.healthBadgeText([])).toBeNull();
    expect(health.healthBadgeText(['HEALTHY', 'DISABLED', 'UNSCHEDULED'])).toBeNull();
    expect(health.healthBadgeText(['LATE'])).toBe('1 producer late');
    expect(health.healthBadgeText(['LATE', 'HEALTHY', 'LATE'])).toBe('2 producers late');
    expect(health.healthBadgeText(['MISSING'])).toBe('1 producer missing');
    expect(health.healthBadgeText(['MISSING', 'LATE', 'MISSING'])).toBe('3 producers late or missing');
  });

  it('B8: a bare address opens Health while a producer is LATE or MISSING; an address naming a view wins', () => {
    expect(health.defaultTab(false, ['HEALTHY', 'LATE'])).toBe('health');
    expect(health.defaultTab(false, ['MISSING'])).toBe('health');
    expect(health.defaultTab(false, ['HEALTHY', 'DISABLED', 'UNSCHEDULED'])).toBe('list');
    expect(health.defaultTab(false, [])).toBe('list');
    expect(health.defaultTab(true, ['MISSING'])).toBeNull();
  });
});

describe('B8, B9: the Health tab in the address', () => {
  it('B8, B9: #/health carries the instrument and the span; an unknown span means 24 h', () => {
    expect(parseRoute('#/health')).toEqual({ kind: 'health', instrument: null, span: '24h' });
    expect(parseRoute('#/health?instrument=ETH&span=7d')).toEqual({
      kind: 'health',
      instrument: 'ETH',
      span: '7d',
    });
    expect(parseRoute('#/health?span=1h')).toEqual({ kind: 'health', instrument: null, span: '24h' });
    expect(parseRoute('#/health/x')).toEqual({ kind: 'list' });
    expect(routeHash({ kind: 'health', instrument: null, span: '24h' })).toBe('#/health');
    expect(routeHash({ kind: 'health', instrument: 'SOL', span: '6h' })).toBe(
      '#/health?instrument=SOL&span=6h',
    );
    for (const hash of ['#/health', '#/health?instrument=ETH', '#/health?instrument=BTC&span=7d']) {
      expect(routeHash(parseRoute(hash))).toBe(hash);
    }
  });
});

describe('B10: audit flags in words', () => {
  it('B10: each not-in-context reason reads as words; an unknown code stays readable', () => {
    expect(health.notInContextText('other_instrument')).toBe('not in context: about another instrument');
    expect(health.notInContextText('superseded')).toBe(
      'not in context: superseded by a newer record of its group',
    );
    expect(health.notInContextText('stale')).toBe('not in context: stale or disabled then');
    expect(health.notInContextText('correction_original')).toBe(
      'not in context: corrected by a fresh correction',
    );
    expect(health.notInContextText('not_research')).toBe('not in context: not research Trading is given');
    expect(health.notInContextText('brand_new_code')).toBe('not in context: brand new code');
    expect(health.notInContextText(null)).toBe('not in context');
  });
});

describe('B8, B9: the board flips by itself', () => {
  const groups = [
    { state: 'FRESH' as const, expiresAt: iso(T0 + 10 * MIN) },
    { state: 'FRESH' as const, expiresAt: iso(T0 + 4 * MIN) },
    { state: 'FRESH' as const, expiresAt: null },
    { state: 'STALE' as const, expiresAt: iso(T0 + 2 * MIN) },
    { state: 'DISABLED' as const, expiresAt: iso(T0 + MIN) },
    { state: 'NONE' as const, expiresAt: null },
  ];

  it('B9: FRESH turns STALE at expiresAt exactly (C2), nothing else changes', () => {
    expect(groups.map((g) => health.groupStateAt(g, T0 + 4 * MIN - 1))).toEqual([
      'FRESH',
      'FRESH',
      'FRESH',
      'STALE',
      'DISABLED',
      'NONE',
    ]);
    expect(groups.map((g) => health.groupStateAt(g, T0 + 4 * MIN))).toEqual([
      'FRESH',
      'STALE',
      'FRESH',
      'STALE',
      'DISABLED',
      'NONE',
    ]);
  });

  it('B9: the next flip is the earliest future expiry of a FRESH group; one timer waits for it', () => {
    expect(health.nextFlipAt(groups, T0)).toBe(T0 + 4 * MIN);
    expect(health.nextFlipAt(groups, T0 + 4 * MIN)).toBe(T0 + 10 * MIN);
    expect(health.nextFlipAt(groups, T0 + 10 * MIN)).toBeNull();
    expect(health.flipDelay(T0 + 4 * MIN, T0)).toBe(4 * MIN + 50);
    expect(health.flipDelay(T0, T0 + MIN)).toBe(50);
    expect(health.flipDelay(T0 + 400 * 24 * HOUR, T0)).toBe(2_147_483_647);
  });

  it('B8, B9: live refreshes wait 30 s after the last one, never less', () => {
    expect(health.refreshAt(null, T0)).toBe(T0);
    expect(health.refreshAt(T0, T0 + 5_000)).toBe(T0 + 30_000);
    expect(health.refreshAt(T0, T0 + 45_000)).toBe(T0 + 45_000);
  });

  it('B8, B9: durations and lateness read in words', () => {
    expect(health.formatDuration(12 * MIN + 59_000)).toBe('12 min');
    expect(health.formatDuration(2 * HOUR + 5 * MIN)).toBe('2 h 5 min');
    expect(health.formatDuration(3 * HOUR)).toBe('3 h');
    expect(health.formatDuration(76 * HOUR)).toBe('3 d 4 h');
    expect(health.formatSeconds(null)).toBe('—');
    expect(health.formatSeconds(44.6)).toBe('45 s');
    expect(health.formatSeconds(185)).toBe('3 min');
  });
});

describe('B8, B9: timeline geometry', () => {
  const layout = { width: 600, laneHeight: 20, markerRow: 16, axisRow: 24 };
  const day = { from: T0, to: T0 + 23 * HOUR }; // the spring-forward day is 23 h long

  it('B3: ticks on the spring-forward day are local hours, 00:00 EST then 03:00 EDT two hours later', () => {
    const g = timeline.timelineGeometry(day, [], [], layout);
    expect(g.ticks.map((t) => t.label).slice(0, 3)).toEqual(['Mar 8', '03:00 AM', '06:00 AM']);
    expect(g.ticks[0]!.day).toBe(true);
    expect(g.ticks[1]!.at - g.ticks[0]!.at).toBe(2 * HOUR);
    expect(g.ticks[2]!.at - g.ticks[1]!.at).toBe(3 * HOUR);
    // 23 h after the first midnight is the next one.
    expect(g.ticks.slice(-2).map((t) => t.label)).toEqual(['09:00 PM', 'Mar 9']);
    // Positions follow the instants, not the labels: 00:00 at 0, 03:00 EDT at 2/23 of the width.
    expect(g.ticks[1]!.x).toBeCloseTo((600 * 2) / 23, 6);
  });

  it('B3: the fall-back week has one tick per local midnight, 25 h apart across the change', () => {
    const from = Date.parse('2026-10-29T12:00:00-04:00');
    const g = timeline.timelineGeometry({ from, to: from + 7 * 24 * HOUR }, [], [], layout);
    const midnights = g.ticks.map((t) => t.at);
    expect(g.ticks.every((t) => t.day)).toBe(true);
    expect(g.ticks[0]!.label).toBe('Oct 30');
    const gaps = midnights.slice(1).map((at, i) => (at - midnights[i]!) / HOUR);
    expect(gaps).toEqual([24, 24, 25, 24, 24, 24]);
  });

  it('B9: a lane draws each fresh interval clipped to the span; gaps are what no interval covers', () => {
    const lane = {
      key: 'p:ema',
      producerName: 'ema',
      type: 'ema_handoff',
      intervals: [
        { from: iso(T0 - HOUR), to: iso(T0 + HOUR), memoryId: 'a', corrected: false },
        { from: iso(T0 + 2 * HOUR), to: iso(T0 + 3 * HOUR), memoryId: 'b', corrected: true },
        { from: iso(T0 + 30 * HOUR), to: iso(T0 + 31 * HOUR), memoryId: 'c', corrected: false },
      ],
    };
    const g = timeline.timelineGeometry({ from: T0, to: T0 + 4 * HOUR }, [lane], [], layout);
    const [l] = g.lanes;
    expect(l!.bars.map((b) => [b.memoryId, b.x, b.width, b.corrected])).toEqual([
      ['a', 0, 150, false],
      ['b', 300, 150, true],
    ]);
    expect(l!.gaps).toEqual([
      { from: T0 + HOUR, to: T0 + 2 * HOUR },
      { from: T0 + 3 * HOUR, to: T0 + 4 * HOUR },
    ]);
    expect(l!.freshMs).toBe(2 * HOUR);
    expect(l!.y).toBe(16);
    expect(g.height).toBe(16 + 20 + 24);
    expect(timeline.laneDescription(l!, 4 * HOUR, health.formatDuration)).toBe(
      'ema · ema_handoff: fresh 2 h of 4 h, 2 fresh intervals, 2 gaps, 1 corrected.',
    );
  });

  it('B9: a lane with no interval is one gap; a fresh minute in a week stays visible', () => {
    expect(timeline.gapsOf([], T0, T0 + HOUR)).toEqual([{ from: T0, to: T0 + HOUR }]);
    const week = { from: T0, to: T0 + 7 * 24 * HOUR };
    const lane = {
      key: 'k',
      producerName: 'p',
      type: 't',
      intervals: [{ from: iso(T0 + HOUR), to: iso(T0 + HOUR + MIN), memoryId: 'm', corrected: false }],
    };
    expect(timeline.timelineGeometry(week, [lane], [], layout).lanes[0]!.bars[0]!.width).toBe(1);
  });

  it('T3: decisions inside the span become markers in time order; outside ones are left out', () => {
    const decisions = [
      { id: 'late', createdAt: iso(T0 + 3 * HOUR), content: 'b' },
      { id: 'early', createdAt: iso(T0 + HOUR), content: 'a' },
      { id: 'before', createdAt: iso(T0 - MIN), content: 'x' },
    ];
    const g = timeline.timelineGeometry({ from: T0, to: T0 + 4 * HOUR }, [], decisions, layout);
    expect(g.markers.map((m) => [m.id, m.x])).toEqual([
      ['early', 150],
      ['late', 450],
    ]);
  });

  it('B8, B9: the spans end now and are 6 h, 24 h and 7 d long', () => {
    expect(timeline.spanWindow('6h', T0)).toEqual({ from: T0 - 6 * HOUR, to: T0 });
    expect(timeline.spanWindow('7d', T0).from).toBe(T0 - 7 * 24 * HOUR);
    expect(timeline.isTimelineSpan('24h')).toBe(true);
    expect(timeline.isTimelineSpan('1h')).toBe(false);
  });
});

// The operator page's routes (B6, C9) and the Context tab's "as of" local time in a
// daylight-saving zone (C9, B3), without a browser.
import { describe, expect, it } from 'vitest';
import { localInputValue, readLocalTime } from '../../src/web/local-time.js';
import {
  isRouteHash,
  memoryHref,
  parseRoute,
  routeAfterAgentSwitch,
  routeHash,
  type Route,
} from '../../src/web/route.js';

const ID = '7c0c8a3e-2f4b-4d35-9b8e-0d3f5a1c2b4d';
const NY = 'America/New_York';

describe('routes in the fragment', () => {
  it('B6: #/memory/<id> is a record page; anything else unknown is the list', () => {
    expect(parseRoute(`#/memory/${ID}`)).toEqual({ kind: 'record', id: ID });
    expect(parseRoute(memoryHref(ID))).toEqual({ kind: 'record', id: ID });
    expect(parseRoute('#/memory/not-a-uuid')).toEqual({ kind: 'record', id: 'not-a-uuid' });
    for (const hash of ['', '#', '#/', '#/memory', `#/memory/${ID}/x`, '#/nowhere']) {
      expect(parseRoute(hash), hash).toEqual({ kind: 'list' });
    }
  });

  it('B6: a malformed escape in #/memory/<id> is a record that does not exist, not a crash', () => {
    // decodeURIComponent throws URIError on these; the route is read while the page renders.
    for (const id of ['%', '%E0%A4%A', '%zz', 'abc%']) {
      expect(parseRoute(`#/memory/${id}`), id).toEqual({ kind: 'record', id });
    }
  });

  it('C9: #/context carries the instrument and the instant; a bad instant means now', () => {
    expect(parseRoute('#/context')).toEqual({ kind: 'context', instrument: null, at: null });
    expect(parseRoute('#/context?instrument=ETH&at=2026-03-08T07:30:00Z')).toEqual({
      kind: 'context',
      instrument: 'ETH',
      at: '2026-03-08T07:30:00.000Z',
    });
    expect(parseRoute('#/context?instrument=kPEPE&at=yesterday')).toEqual({
      kind: 'context',
      instrument: 'kPEPE',
      at: null,
    });
    const routes: Route[] = [
      { kind: 'list' },
      { kind: 'record', id: ID },
      { kind: 'context', instrument: 'ETH', at: '2026-11-01T05:30:00.000Z' },
      { kind: 'context', instrument: null, at: null },
    ];
    for (const route of routes) expect(parseRoute(routeHash(route))).toEqual(route);
  });

  it('a sign-in link is not a route, and a route is not a sign-in link (session.ts)', () => {
    expect(isRouteHash('#token=op_x')).toBe(false);
    expect(parseRoute('#token=op_x')).toEqual({ kind: 'list' });
    expect(isRouteHash('#/context?instrument=ETH')).toBe(true);
  });

  it('an agent switch keeps the tab but not a record of the other agent', () => {
    const context: Route = { kind: 'context', instrument: 'ETH', at: null };
    expect(routeAfterAgentSwitch(context)).toBe(context);
    expect(routeAfterAgentSwitch({ kind: 'record', id: ID })).toEqual({ kind: 'list' });
  });
});

describe('C9: an "as of" local time in America/New_York', () => {
  it('C9: an ordinary time and the hours around the spring-forward change (2026-03-08)', () => {
    expect(readLocalTime('2026-03-07T12:00', NY)).toEqual({
      kind: 'ok',
      instants: ['2026-03-07T17:00:00.000Z'],
    });
    expect(readLocalTime('2026-03-08T01:30', NY)).toEqual({
      kind: 'ok',
      instants: ['2026-03-08T06:30:00.000Z'],
    });
    expect(readLocalTime('2026-03-08T03:30:15', NY)).toEqual({
      kind: 'ok',
      instants: ['2026-03-08T07:30:15.000Z'],
    });
    // 02:30 does not occur that day: read with EST's offset, it is 03:30 EDT.
    expect(readLocalTime('2026-03-08T02:30', NY)).toEqual({
      kind: 'skipped',
      instant: '2026-03-08T07:30:00.000Z',
    });
  });

  it('C9: a time that occurs twice on the fall-back day (2026-11-01) has two instants, EDT first', () => {
    expect(readLocalTime('2026-11-01T01:30', NY)).toEqual({
      kind: 'ok',
      instants: ['2026-11-01T05:30:00.000Z', '2026-11-01T06:30:00.000Z'],
    });
    expect(readLocalTime('2026-11-01T02:30', NY)).toEqual({
      kind: 'ok',
      instants: ['2026-11-01T07:30:00.000Z'],
    });
  });

  it('C9: the input shows an instant in the zone, on both sides of both changes', () => {
    for (const [iso, local] of [
      ['2026-03-08T06:30:00.000Z', '2026-03-08T01:30:00'],
      ['2026-03-08T07:30:00.000Z', '2026-03-08T03:30:00'],
      ['2026-11-01T05:30:00.000Z', '2026-11-01T01:30:00'],
      ['2026-11-01T06:30:00.000Z', '2026-11-01T01:30:00'],
    ]) {
      expect(localInputValue(iso!, NY)).toBe(local);
    }
    expect(localInputValue('2026-03-08T07:30:00.000Z', 'Asia/Kolkata')).toBe('2026-03-08T13:00:00');
  });

  it('C9: text that is not a local date-time is invalid', () => {
    for (const value of ['', '2026-03-08', '2026-02-30T10:00', '2026-03-08T24:00', 'yesterday']) {
      expect(readLocalTime(value, NY), value).toEqual({ kind: 'invalid' });
    }
  });
});

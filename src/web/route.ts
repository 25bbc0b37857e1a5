// Where the operator is, in the address's fragment, so every view can be linked, reloaded and reached
// with Back and Forward: `#/memory/<id>` (a record), `#/context?instrument=ETH&at=<ISO>` (the Context
// tab), `#/health?instrument=ETH&span=24h` (the Health tab), anything else the Memories list. A
// sign-in link's `#token=…` is not a route (session.ts).
import { isTimelineSpan, type TimelineSpan } from './timeline.js';

export type Route =
  | { kind: 'list' }
  | { kind: 'record'; id: string }
  /** `at` null: now. `instrument` null: the agent's first instrument. */
  | { kind: 'context'; instrument: string | null; at: string | null }
  /** The desk's view (B8, B9): `instrument` null ⇒ the board's first; the timeline's span. */
  | { kind: 'health'; instrument: string | null; span: TimelineSpan };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isMemoryId(id: string): boolean {
  return UUID.test(id);
}

/** A route's fragment starts with `#/`; a sign-in link's does not. */
export function isRouteHash(hash: string): boolean {
  return hash.replace(/^#/, '').startsWith('/');
}

/** An ISO instant as the API answers it, or null when `value` is not an instant. */
function instantOrNull(value: string | null): string | null {
  if (!value) return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) || !/^\d{4}-\d{2}-\d{2}T/.test(value) ? null : new Date(ms).toISOString();
}

/** A path segment decoded; a malformed escape (a hand-edited address) stays as typed: no such record. */
function decodedOrRaw(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export function parseRoute(hash: string): Route {
  if (!isRouteHash(hash)) return { kind: 'list' };
  const body = hash.replace(/^#\/?/, '');
  const question = body.indexOf('?');
  const path = question < 0 ? body : body.slice(0, question);
  const params = new URLSearchParams(question < 0 ? '' : body.slice(question + 1));
  const [section, id, ...rest] = path.split('/');
  if (section === 'memory' && id !== undefined && rest.length === 0) {
    return { kind: 'record', id: decodedOrRaw(id) };
  }
  if (section === 'context' && id === undefined) {
    const instrument = params.get('instrument')?.trim();
    return { kind: 'context', instrument: instrument || null, at: instantOrNull(params.get('at')) };
  }
  if (section === 'health' && id === undefined) {
    const instrument = params.get('instrument')?.trim();
    const span = params.get('span');
    return { kind: 'health', instrument: instrument || null, span: isTimelineSpan(span) ? span : '24h' };
  }
  return { kind: 'list' };
}

export function routeHash(route: Route): string {
  switch (route.kind) {
    case 'list':
      return '#/';
    case 'record':
      return memoryHref(route.id);
    case 'context': {
      const params = new URLSearchParams();
      if (route.instrument) params.set('instrument', route.instrument);
      if (route.at) params.set('at', route.at);
      const query = params.toString();
      return query ? `#/context?${query}` : '#/context';
    }
    case 'health': {
      const params = new URLSearchParams();
      if (route.instrument) params.set('instrument', route.instrument);
      if (route.span !== '24h') params.set('span', route.span);
      const query = params.toString();
      return query ? `#/health?${query}` : '#/health';
    }
  }
}

/** The link that opens a record's page. */
export function memoryHref(id: string): string {
  return `#/memory/${encodeURIComponent(id)}`;
}

/**
 * The route kept when the admin switches agents: a tab stays the tab (the instrument and instant too);
 * a record belongs to the agent it was opened for, so the list of the new agent opens instead.
 */
export function routeAfterAgentSwitch(route: Route): Route {
  return route.kind === 'record' ? { kind: 'list' } : route;
}

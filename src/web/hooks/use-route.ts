// The route in the address (route.ts), followed through links, Back and Forward, and the page's own
// navigation; the list keeps its scroll position while another view is shown.
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { parseRoute, routeHash, type Route } from '../route.js';

export interface RouteControl {
  route: Route;
  /** Opens `next`: a new history entry (Back returns), or the current one replaced. */
  navigate: (next: Route, history?: 'push' | 'replace') => void;
}

function useRoute(): RouteControl {
  const [hash, setHash] = useState(() => window.location.hash);
  useEffect(() => {
    // Links change the fragment (hashchange); Back and Forward, and pushState by the agent switch, too.
    const follow = () => setHash(window.location.hash);
    window.addEventListener('hashchange', follow);
    window.addEventListener('popstate', follow);
    return () => {
      window.removeEventListener('hashchange', follow);
      window.removeEventListener('popstate', follow);
    };
  }, []);
  // Read from the address itself: the admin's agent switch rewrites it without an event, and the
  // render that switch causes must see the route it kept.
  const current = window.location.hash;
  const route = useMemo(() => parseRoute(current), [current, hash]);
  const navigate = useCallback((next: Route, history: 'push' | 'replace' = 'push') => {
    const target = routeHash(next);
    if (target === window.location.hash) return;
    const { pathname, search } = window.location;
    if (history === 'push') window.history.pushState(null, '', `${pathname}${search}${target}`);
    else window.history.replaceState(window.history.state, '', `${pathname}${search}${target}`);
    setHash(target);
  }, []);
  return { route, navigate };
}

/**
 * The list stays mounted under the other views; its scroll position is put back when it shows again,
 * and another view opens at its top.
 */
function useScrollPerView(view: string): void {
  const listScroll = useRef(0);
  const shown = useRef(view);
  useEffect(() => {
    const remember = () => {
      if (shown.current === 'list') listScroll.current = window.scrollY;
    };
    window.addEventListener('scroll', remember, { passive: true });
    return () => window.removeEventListener('scroll', remember);
  }, []);
  useLayoutEffect(() => {
    if (shown.current === view) return;
    shown.current = view;
    window.scrollTo(0, view === 'list' ? listScroll.current : 0);
  }, [view]);
}

/** The route of the agent's page, and the list's scroll position kept across the other views. */
export function useViewRoute(): RouteControl {
  const routing = useRoute();
  useScrollPerView(routing.route.kind);
  return routing;
}

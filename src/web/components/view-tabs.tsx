// The agent's views in the top bar: the Memories list and the Context tab (a record page belongs to
// neither). Plain links to routes, so Back, Forward, a new tab and a reload all work; the current one
// is marked with aria-current.
import { useRef } from 'preact/hooks';
import { routeHash, type Route } from '../route.js';

export function ViewTabs({ route }: { route: Route }) {
  // Back to the Context tab from elsewhere opens the instrument and instant last shown there.
  const lastContext = useRef<Route>({ kind: 'context', instrument: null, at: null });
  if (route.kind === 'context') lastContext.current = route;
  const tabs = [
    { kind: 'list', label: 'Memories', href: routeHash({ kind: 'list' }) },
    { kind: 'context', label: 'Context', href: routeHash(lastContext.current) },
  ] as const;
  return (
    <nav class="view-tabs" aria-label="Views">
      <ul>
        {tabs.map((tab) => {
          const current = route.kind === tab.kind;
          return (
            <li key={tab.kind}>
              <a
                class={current ? 'view-tab view-tab-on' : 'view-tab'}
                href={tab.href}
                aria-current={current ? 'page' : undefined}
                data-view={tab.kind}
              >
                {tab.label}
              </a>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}

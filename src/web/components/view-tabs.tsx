// The agent's views in the top bar: the Memories list, the Context tab and the Health tab (a record
// page belongs to none), and beside them the health badge ("2 producers late") on every view. Plain links to routes, so Back, Forward, a new tab and a reload all work; the current one
// is marked with aria-current.
import { useRef } from 'preact/hooks';
import { routeHash, type Route } from '../route.js';

export function ViewTabs({ route, badge }: { route: Route; badge: string | null }) {
  // Back to the Context or Health tab from elsewhere opens what was last shown there.
  const lastContext = useRef<Route>({ kind: 'context', instrument: null, at: null });
  const lastHealth = useRef<Route>({ kind: 'health', instrument: null, span: '24h' });
  if (route.kind === 'context') lastContext.current = route;
  if (route.kind === 'health') lastHealth.current = route;
  const tabs = [
    { kind: 'list', label: 'Memories', href: routeHash({ kind: 'list' }) },
    { kind: 'context', label: 'Context', href: routeHash(lastContext.current) },
    { kind: 'health', label: 'Health', href: routeHash(lastHealth.current) },
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
        {badge ? (
          <li>
            <a class="health-badge" href={routeHash(lastHealth.current)} data-health-badge="">
              <span class="health-badge-dot" aria-hidden="true" />
              {badge}
            </a>
          </li>
        ) : null}
      </ul>
    </nav>
  );
}

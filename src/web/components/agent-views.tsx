// The views beside the Memories list, chosen by the route (route.ts): a record's page, the Context
// tab and the Health tab. The list stays mounted underneath (hidden), so its filters, live updates and place survive.
import type { GraphQLClient } from '../graphql.js';
import type { HealthState } from '../hooks/use-health.js';
import type { RouteControl } from '../hooks/use-route.js';
import { ContextTab } from './context-tab.js';
import { HealthTab } from './health-tab.js';
import { RecordPage } from './record-page.js';
import type { Who } from './top-bar.js';

interface AgentViewsProps {
  routing: RouteControl;
  client: GraphQLClient;
  who: Who;
  failed: (error: unknown) => boolean;
  timeZone: string;
  health: HealthState;
}

export function AgentViews({ routing, client, who, failed, timeZone, health }: AgentViewsProps) {
  const { route, navigate } = routing;
  switch (route.kind) {
    case 'list':
      return null;
    case 'record':
      // Keyed by id: another record starts from its own loading state and focus.
      return (
        <RecordPage
          key={route.id}
          id={route.id}
          client={client}
          agent={who.agent}
          agents={who.agents}
          failed={failed}
        />
      );
    case 'context':
      return (
        <ContextTab
          route={route}
          navigate={navigate}
          client={client}
          agent={who.agent}
          failed={failed}
          timeZone={timeZone}
        />
      );
    case 'health':
      return (
        <HealthTab
          route={route}
          navigate={navigate}
          client={client}
          agent={who.agent}
          health={health}
          failed={failed}
        />
      );
  }
}

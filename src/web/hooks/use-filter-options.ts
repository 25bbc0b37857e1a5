// What the filter column offers for one agent: its selected instruments and its producers (one request).
import { useEffect, useState } from 'preact/hooks';
import type { GraphQLClient } from '../graphql.js';
import { FILTER_OPTIONS_QUERY, type FilterOptionsResult, type ProducerOption } from '../queries.js';

export interface FilterOptions {
  instruments: string[];
  producers: ProducerOption[];
}

const NONE: FilterOptions = { instruments: [], producers: [] };

export function useFilterOptions(
  client: GraphQLClient,
  agentId: string,
  failed: (error: unknown) => boolean,
): FilterOptions {
  const [options, setOptions] = useState<FilterOptions>(NONE);
  useEffect(() => {
    const controller = new AbortController();
    client
      .request<FilterOptionsResult>(FILTER_OPTIONS_QUERY, { agentId }, controller.signal)
      .then((data) => {
        const agent = data.agent;
        if (!agent) return;
        const producers = [...agent.producers].sort((a, b) => a.name.localeCompare(b.name));
        setOptions({ instruments: [...agent.instruments].sort(), producers });
      })
      // The filters still work from the address without the options: only an auth failure matters here.
      .catch((error: unknown) => {
        if (!(error instanceof DOMException && error.name === 'AbortError')) failed(error);
      });
    return () => controller.abort();
  }, [client, agentId, failed]);
  return options;
}

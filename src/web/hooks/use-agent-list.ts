// The shown list of one agent as one unit: its type counts, its pages and its live subscription, which
// feed each other (the first page brings the counts, live records refresh them and join the pages).
import type { BrowseFilter } from '../filters.js';
import type { GraphQLClient } from '../graphql.js';
import { useLiveMemories } from './use-live-memories.js';
import { useMemoryList } from './use-memory-list.js';
import { useTypeCounts } from './use-type-counts.js';

interface AgentListOptions {
  token: string;
  client: GraphQLClient;
  agentId: string;
  filter: BrowseFilter;
  timeZone: string;
  failed: (error: unknown) => boolean;
  announce: (message: string) => void;
}

export function useAgentList({
  token,
  client,
  agentId,
  filter,
  timeZone,
  failed,
  announce,
}: AgentListOptions) {
  const types = useTypeCounts(client, agentId, failed);
  const memories = useMemoryList({ client, agentId, filter, timeZone, failed, types, announce });
  const live = useLiveMemories({
    token,
    agentId,
    client,
    memories,
    failed,
    refreshTypes: types.refresh,
    announce,
  });
  return { types, memories, live };
}

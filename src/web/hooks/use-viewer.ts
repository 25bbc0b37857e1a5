// Who the token is (`viewer`) and which agents it may browse (`agents`): one request when the session
// starts. A run token cannot browse here (its reads are restricted, it cannot subscribe): it signs out.
import { useEffect, useState } from 'preact/hooks';
import { AuthError, type GraphQLClient } from '../graphql.js';
import { VIEWER_QUERY, type AgentSummary, type ViewerResult } from '../queries.js';

export type ViewerState =
  | { status: 'loading' }
  | { status: 'error'; message: string }
  | { status: 'ready'; kind: 'ADMIN' | 'OPERATOR'; agent: AgentSummary | null; agents: AgentSummary[] };

function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError';
}

export function useViewer(
  client: GraphQLClient,
  failed: (error: unknown) => boolean,
): ViewerState & { retry: () => void } {
  const [state, setState] = useState<ViewerState>({ status: 'loading' });
  const [attempts, setAttempts] = useState(0);
  useEffect(() => {
    const controller = new AbortController();
    setState({ status: 'loading' });
    client
      .request<ViewerResult>(VIEWER_QUERY, {}, controller.signal)
      .then(({ viewer, agents }) => {
        if (viewer.kind === 'RUN') return void failed(new AuthError('A run token', 'FORBIDDEN'));
        setState({ status: 'ready', kind: viewer.kind, agent: viewer.agent, agents });
      })
      .catch((error: unknown) => {
        if (isAbort(error) || failed(error)) return;
        setState({ status: 'error', message: error instanceof Error ? error.message : String(error) });
      });
    return () => controller.abort();
  }, [client, failed, attempts]);
  return { ...state, retry: () => setAttempts((n) => n + 1) };
}

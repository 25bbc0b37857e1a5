// GET /metrics and the per-operation GraphQL counters: the label is the operation's type and its first
// root field (bounded by the schema), never the client-chosen operation name.
import { getOperationAST, Kind, type DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Metrics } from '../metrics.js';

function operationLabels(document: DocumentNode, operationName?: string | null) {
  const operation = getOperationAST(document, operationName);
  const first = operation?.selectionSet.selections.find((s) => s.kind === Kind.FIELD);
  return {
    type: operation?.operation ?? 'unknown',
    field: first && first.kind === Kind.FIELD ? first.name.value : 'unknown',
  };
}

export function metricsPlugin(metrics: Metrics): Plugin {
  return {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      if (url.pathname !== '/metrics' || request.method !== 'GET') return;
      const { body, contentType } = await metrics.render();
      endResponse(new fetchAPI.Response(body, { headers: { 'content-type': contentType } }));
    },
    onExecute({ args }) {
      const labels = operationLabels(args.document, args.operationName);
      const stop = metrics.operationSeconds.startTimer(labels);
      return {
        onExecuteDone({ result }) {
          stop();
          const failed = 'errors' in result && Boolean(result.errors?.length);
          metrics.operations.inc({ ...labels, outcome: failed ? 'error' : 'ok' });
        },
      };
    },
    onSubscribe({ args }) {
      metrics.operations.inc({ ...operationLabels(args.document, args.operationName), outcome: 'ok' });
    },
  };
}

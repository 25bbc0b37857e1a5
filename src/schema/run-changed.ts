// Subscription.runChanged (B7): a run of the agent started or finished, so the desk's
// health and board refresh on memoryAdded and runChanged instead of polling.
import { agentForRead } from '../auth/access.js';
import { SessionRevokedError } from '../domain/errors.js';
import type { RunChangedEvent } from '../live/events.js';
import { queuedStream } from '../live/queued-stream.js';
import { RunRef } from './admin.js';
import { builder, needs } from './builder.js';

/** A subscriber further behind than this many run changes is ended (SLOW_CONSUMER); it re-reads health. */
const MAX_PENDING_RUN_CHANGES = 100;

builder.subscriptionField('runChanged', (t) =>
  t.withAuth(needs('subscribe').authScopes).field({
    unauthorizedError: needs('subscribe').unauthorizedError,
    type: RunRef,
    description:
      'A run of the agent started, finished, failed or was cancelled (the run as it is now). Operators, and the admin naming agentId; run tokens may not subscribe (L1).',
    args: { agentId: t.arg({ type: 'UUID', required: false }) },
    subscribe: (_root, args, ctx) => {
      const agentId = agentForRead(ctx.caller, args.agentId);
      const { caller } = ctx;
      return queuedStream<RunChangedEvent>(MAX_PENDING_RUN_CHANGES, (sink) => {
        const stopListening = ctx.events.listenRuns(agentId, (event) => sink.next(event));
        // S6, L4: revoking the operator token ends the subscription.
        const stopWatching =
          caller.kind === 'admin'
            ? () => {}
            : ctx.sessions.register(caller.tokenKey, () => sink.end(new SessionRevokedError()));
        return () => {
          stopListening();
          stopWatching();
        };
      });
    },
    resolve: async (event, _args, ctx) => {
      const run = await ctx.liveDb.prisma.run.findFirst({
        where: { id: event.runId, agentId: event.agentId },
      });
      if (!run) throw new Error(`run ${event.runId} was announced but is not stored`);
      return run;
    },
  }),
);

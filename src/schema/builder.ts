// The one Pothos builder: scalars, Prisma, typed write errors and the access scopes (S1) every field declares.
import SchemaBuilder from '@pothos/core';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import ErrorsPlugin from '@pothos/plugin-errors';
import PrismaPlugin from '@pothos/plugin-prisma';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import { REFUSED, scopesOf, type CallerScopes } from '../auth/access.js';
import type { Capability } from '../auth/access-table.js';
import { authFailureError, isUnverified, type Caller } from '../auth/caller.js';
import { ForbiddenError, type ServiceError } from '../domain/errors.js';
import type PrismaTypes from '../store/generated/pothos-types.js';
import { getDatamodel } from '../store/generated/pothos-types.js';
import type { JsonObject } from '../domain/types.js';
import type { GraphQLContext } from './context.js';
import { unusedQueryCheck } from './unused-query-check.js';

/** The context a resolver sees once a scope let the request through: the caller is known (and of which kind). */
type ContextOf<C extends Caller> = GraphQLContext & { caller: C };
type CallerOfKind<K extends Caller['kind']> = ContextOf<Extract<Caller, { kind: K }>>;

/**
 * S1: how a field's scopes refuse a request. Without a caller — or with one this request found dead
 * (the `live` scope) — it is UNAUTHENTICATED saying why (a finished run, a revoked token — L4); a
 * caller without the scope is FORBIDDEN with `message`.
 */
function refuse(ctx: GraphQLContext, message?: string): ServiceError {
  const ended = ctx.auth.ended;
  if (ended) return authFailureError(ended.failure);
  return ctx.caller ? new ForbiddenError(message) : authFailureError(ctx.authFailure);
}

/** Field option `unauthorizedError`: the FORBIDDEN message of this field's refusal. */
export function refusal(message: string) {
  return (_parent: unknown, _args: unknown, ctx: GraphQLContext): ServiceError => refuse(ctx, message);
}

/** A field's rights as the access table states them: the capability it needs, and its refusal. */
export function needs<C extends Capability>(capability: C) {
  return {
    authScopes: { [capability]: true } as { [K in C]: true },
    unauthorizedError: refusal(REFUSED[capability]),
  };
}

export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  PrismaTypes: PrismaTypes;
  DefaultFieldNullability: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    Date: { Input: string; Output: string };
    JSON: { Input: JsonObject | unknown; Output: unknown };
    UUID: { Input: string; Output: string };
  };
  AuthScopes: CallerScopes & {
    /** S6, S14: the token still authenticates (read at most once per request, only for a remembered identity). */
    live: boolean;
  };
  AuthContexts: {
    identify: ContextOf<Caller>;
    instruments: ContextOf<Caller>;
    record: ContextOf<Caller>;
    context: ContextOf<Caller>;
    browse: ContextOf<Caller>;
    desk: ContextOf<Caller>;
    audit: ContextOf<Caller>;
    subscribe: ContextOf<Caller>;
    write: CallerOfKind<'run'>;
    administer: CallerOfKind<'admin'>;
    live: GraphQLContext;
  };
}>({
  // Scope auth first: a refused request never reaches another plugin's wrapper or the resolver.
  plugins: [ScopeAuthPlugin, ErrorsPlugin, DataloaderPlugin, PrismaPlugin],
  defaultFieldNullability: false,
  scopeAuth: {
    authScopes: (ctx) => ({
      ...scopesOf(ctx.caller),
      // A loader: only a field that needs it reads it, and the plugin caches it for the request.
      live: isUnverified(ctx.caller) ? async () => (await ctx.auth.live()).caller !== null : true,
    }),
    // A subscription is checked once, when it is opened (as before), not again for every event.
    authorizeOnSubscribe: true,
    unauthorizedError: (_parent, ctx) => refuse(ctx),
  },
  prisma: {
    dmmf: getDatamodel(),
    client: (ctx) => ctx.db.prisma,
    exposeDescriptions: false,
    filterConnectionTotalCount: true,
    onUnusedQuery: unusedQueryCheck(),
  },
  errors: { defaultTypes: [] },
});

/**
 * S6, W9: every root field needs the token to still authenticate (`live`), unless its own statement
 * checks it — such a field declares `...checksTheTokenItself` (createMemory's insert, the folded reads).
 */
export const checksTheTokenItself = { skipTypeScopes: true } as const;

builder.queryType({ authScopes: { live: true } });
builder.mutationType({ authScopes: { live: true } });
builder.subscriptionType({ authScopes: { live: true } });

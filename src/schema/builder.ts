// The one SchemaBuilder: Pothos with the errors and Prisma plugins, typed by the generated Prisma types.
import SchemaBuilder from '@pothos/core';
import ErrorsPlugin from '@pothos/plugin-errors';
import PrismaPlugin from '@pothos/plugin-prisma';
import type PrismaTypes from '../store/generated/pothos-types.js';
import { getDatamodel } from '../store/generated/pothos-types.js';
import type { JsonObject } from '../domain/types.js';
import type { GraphQLContext } from './context.js';
import { unusedQueryCheck } from './unused-query-check.js';

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
}>({
  plugins: [ErrorsPlugin, PrismaPlugin],
  defaultFieldNullability: false,
  prisma: {
    dmmf: getDatamodel(),
    client: (ctx) => ctx.db.prisma,
    exposeDescriptions: false,
    filterConnectionTotalCount: true,
    onUnusedQuery: unusedQueryCheck(),
  },
  errors: { defaultTypes: [] },
});

builder.queryType({});
builder.mutationType({});

import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import { DateTimeResolver, JSONResolver, UUIDResolver } from 'graphql-scalars';
import { isUuid } from '../domain/uuid.js';
import { builder } from './builder.js';

builder.addScalarType('DateTime', DateTimeResolver);
builder.addScalarType('JSON', JSONResolver);
// Malformed UUIDs fail argument validation (W4), before any resolver runs.
builder.addScalarType(
  'UUID',
  new GraphQLScalarType({
    ...UUIDResolver.toConfig(),
    name: 'UUID',
    parseValue: (value) => parseUuid(value),
    parseLiteral: (ast) => parseUuid(ast.kind === Kind.STRING ? ast.value : undefined),
  }),
);

function parseUuid(value: unknown): string {
  if (!isUuid(value)) {
    throw new GraphQLError(
      `UUID cannot represent ${JSON.stringify(value)}: expected a UUID like 00000000-0000-4000-8000-000000000000`,
    );
  }
  return value.toLowerCase();
}

const datePattern = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A local calendar date (YYYY-MM-DD); its time zone travels separately (B3). */
function parseLocalDate(value: unknown): string {
  const match = typeof value === 'string' ? datePattern.exec(value) : null;
  if (match) {
    const [, y, m, d] = match.map(Number) as [number, number, number, number];
    const date = new Date(Date.UTC(y, m - 1, d));
    if (date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d)
      return value as string;
  }
  throw new GraphQLError(
    `Date cannot represent ${JSON.stringify(value)}: expected a calendar date YYYY-MM-DD`,
  );
}

builder.addScalarType(
  'Date',
  new GraphQLScalarType<string, string>({
    name: 'Date',
    description: 'A local calendar date, YYYY-MM-DD',
    serialize: (value) => parseLocalDate(value),
    parseValue: (value) => parseLocalDate(value),
    parseLiteral: (ast) => parseLocalDate(ast.kind === Kind.STRING ? ast.value : undefined),
  }),
);

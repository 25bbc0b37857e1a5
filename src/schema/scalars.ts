import { GraphQLError, GraphQLScalarType, Kind, print, type ValueNode } from 'graphql';
import { DateTimeResolver, JSONResolver, UUIDResolver } from 'graphql-scalars';
import { isStorableInstant } from '../domain/instant-range.js';
import { quoteInput } from '../domain/text-hygiene.js';
import { isUuid } from '../domain/uuid.js';
import { builder } from './builder.js';

// W10: graphql-scalars' own DateTime errors echo the whole input; ours quote at most 100 characters.
builder.addScalarType(
  'DateTime',
  new GraphQLScalarType({
    ...DateTimeResolver.toConfig(),
    // Outputs are Dates read from the database: written as the ISO instant here, once.
    serialize: (value) => serializeInstant(value),
    parseValue: (value) => parseDateTime(() => DateTimeResolver.parseValue(value), value),
    parseLiteral: (ast, variables) =>
      parseDateTime(() => DateTimeResolver.parseLiteral(ast, variables), literalValue(ast)),
  }),
);
builder.addScalarType('JSON', JSONResolver);
// Malformed UUIDs fail argument validation (W4), before any resolver runs.
builder.addScalarType(
  'UUID',
  new GraphQLScalarType({
    ...UUIDResolver.toConfig(),
    name: 'UUID',
    // Outputs are uuid columns: no pattern to check per field (graphql-scalars' was 0.7 % of a page's CPU).
    serialize: (value) => {
      if (typeof value !== 'string') throw new GraphQLError('UUID cannot represent a non-string value');
      return value;
    },
    parseValue: (value) => parseUuid(value),
    parseLiteral: (ast) => parseUuid(ast.kind === Kind.STRING ? ast.value : undefined),
  }),
);

function serializeInstant(value: unknown): string {
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value.toISOString();
  return (DateTimeResolver.serialize(value) as Date).toISOString();
}

function literalValue(ast: ValueNode): unknown {
  return ast.kind === Kind.STRING ? ast.value : print(ast);
}

/** W10: PostgreSQL has no year 0 and the drivers write 4-digit years only: instants outside 0001–9999 UTC are refused. */
function parseDateTime(parse: () => unknown, value: unknown): unknown {
  let parsed: unknown;
  try {
    parsed = parse();
  } catch {
    parsed = null;
  }
  if (isStorableInstant(parsed)) return parsed;
  throw new GraphQLError(
    `DateTime cannot represent ${quoteInput(value)}: expected an RFC 3339 instant between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z`,
  );
}

function parseUuid(value: unknown): string {
  if (!isUuid(value)) {
    throw new GraphQLError(
      `UUID cannot represent ${quoteInput(value)}: expected a UUID like 00000000-0000-4000-8000-000000000000`,
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
  throw new GraphQLError(`Date cannot represent ${quoteInput(value)}: expected a calendar date YYYY-MM-DD`);
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

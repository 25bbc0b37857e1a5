// S9 and G1 for the compiled-query plugin on a schema of its own: a document is executed once when a
// resolver's error is in its answer, and an error the executor made itself costs one second run, once.
import { GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLString } from 'graphql';
import { createYoga } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/domain/errors.js';
import { compiledQueries } from '../../src/http/compiled-queries.js';
import { referenceExecutor } from '../../src/http/reference-executor.js';
import { createLogger } from '../../src/logger.js';
import { Metrics } from '../../src/metrics.js';
import { boundedMasking, maskErrors } from '../../src/schema/errors.js';

const runs = { read: 0 };
const schema = new GraphQLSchema({
  query: new GraphQLObjectType({
    name: 'Query',
    fields: {
      read: {
        type: GraphQLString,
        resolve: async () => {
          runs.read++;
          await new Promise((resolve) => setTimeout(resolve, 1));
          return 'read';
        },
      },
      refused: {
        type: GraphQLString,
        resolve: () => {
          throw new InputError('refused', 'refused');
        },
      },
      fault: {
        type: GraphQLString,
        resolve: () => {
          throw new Error('a server fault');
        },
      },
      required: { type: new GraphQLNonNull(GraphQLString), resolve: () => null },
    },
  }),
});

function service(compiled: boolean) {
  const metrics = new Metrics({ openConnections: () => ({ ws: 0, sse: 0 }), pools: null });
  const yoga = createYoga({
    schema,
    // compiledQueries compiles for a caller only.
    context: () => ({ caller: { kind: 'admin' } }),
    // The service's masking: it rebuilds a resolver's error from what was thrown and its path.
    maskedErrors: { maskError: boundedMasking(maskErrors(createLogger('silent'))) },
    plugins: [referenceExecutor, ...(compiled ? [compiledQueries(metrics, { compileOnRun: 1 })] : [])],
  });
  const ask = async (query: string) =>
    (
      await yoga.fetch('http://test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      })
    ).text();
  const counted = async () => {
    const text = await metrics.registry.metrics();
    const value = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
    return {
      compiled: value('memory_graphql_query_executions_total\\{executor="compiled"\\}'),
      reference: value('memory_graphql_query_executions_total\\{executor="reference"\\}'),
      compilations: value('memory_graphql_query_compilations_total'),
    };
  };
  return { ask, counted };
}

describe('S9: the compiled-query plugin executes a document once', () => {
  it('S9: an answer with resolver errors (typed, a fault) comes from the compiled run, byte for byte the reference one', async () => {
    const query = '{ read refused b: read fault }';
    const expected = await service(false).ask(query);
    const { ask, counted } = service(true);
    runs.read = 0;
    for (let i = 0; i < 3; i++) expect(await ask(query)).toBe(expected);
    expect(runs.read).toBe(6); // two fields, three requests: each executed once
    expect(await counted()).toEqual({ compiled: 3, reference: 0, compilations: 1 });
    expect(expected).toBe(
      '{"errors":[{"message":"refused","path":["refused"],"extensions":{"code":"BAD_USER_INPUT","field":"refused"}},{"message":"Unexpected error.","path":["fault"],"extensions":{"code":"INTERNAL_SERVER_ERROR"}}],"data":{"read":"read","refused":null,"b":"read","fault":null}}',
    );
  });

  it('S9: an error the executor made (null for a non-null field) is answered by the reference executor; the document is not compiled again', async () => {
    const query = '{ read required }';
    const expected = await service(false).ask(query);
    const { ask, counted } = service(true);
    runs.read = 0;
    for (let i = 0; i < 3; i++) expect(await ask(query)).toBe(expected);
    // The first request ran compiled and then by the reference executor; the others by it alone.
    expect(runs.read).toBe(4);
    expect(await counted()).toEqual({ compiled: 0, reference: 3, compilations: 1 });
  });
});

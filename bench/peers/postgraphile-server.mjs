// The browse bench's peer: PostGraphile 5 (amber preset) over the service's tables on the same
// database, in its own process (`node bench/peers/postgraphile-server.mjs <databaseUrl>`, run with
// NODE_ENV=production so Grafast is not in development mode). Production settings: no GraphiQL, no
// explain, no watch; grafserv on node:http; the pg pool as makePgService makes it (pg's default, 10).
//
// PostGraphile 5 declares Node >= 22; on Node 20 it needs only Promise.withResolvers, polyfilled
// here (in this process only, never in the service) before PostGraphile is loaded.
if (typeof Promise.withResolvers !== 'function') {
  Promise.withResolvers = function withResolvers() {
    let resolve;
    let reject;
    const promise = new this((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  };
}

const { createServer } = await import('node:http');
const { postgraphile } = await import('postgraphile');
const { PostGraphileAmberPreset } = await import('postgraphile/presets/amber');
const { makePgService } = await import('postgraphile/adaptors/pg');
const { grafserv } = await import('postgraphile/grafserv/node');
const { addPgTableCondition } = await import('postgraphile/utils');
const { TYPES } = await import('postgraphile/@dataplan/pg');

const connectionString = process.argv[2];
if (!connectionString) throw new Error('usage: postgraphile-server.mjs <databaseUrl>');

/**
 * The one addition to amber: PostGraphile's generated conditions are equalities (and its filter
 * plugin is a separate package), so the 24 h window is this documented condition plugin:
 * `condition: { createdAtFrom: <instant> }` adds `"createdAt" >= <instant>`.
 */
const createdAtFrom = addPgTableCondition(
  { schemaName: 'public', tableName: 'Memory' },
  'createdAtFrom',
  (build) => ({ description: 'createdAt >= this instant', type: build.getInputTypeByName('Datetime') }),
  (value, { sql, sqlTableAlias, sqlValueWithCodec }) =>
    value == null
      ? null
      : sql`${sqlTableAlias}."createdAt" >= ${sqlValueWithCodec(value, TYPES.timestamptz)}`,
);

const preset = {
  extends: [PostGraphileAmberPreset],
  plugins: [createdAtFrom],
  pgServices: [makePgService({ connectionString, schemas: ['public'] })],
  grafserv: { graphiql: false, watch: false, websockets: false },
  grafast: { explain: false },
};

const pgl = postgraphile(preset);
const serv = pgl.createServ(grafserv);
const server = createServer();
await serv.addTo(server);
await pgl.getSchema(); // built before the first request, as a deployed server's is
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  console.log(`listening on http://127.0.0.1:${port}`);
});

const stop = () => {
  server.close();
  void pgl.release().then(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);

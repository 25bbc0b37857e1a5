// The browse bench's floor, in its own process (`node --import tsx bench/browse-floor.ts <databaseUrl>`):
// a bare node:http server that answers each request with ONE hand-written SQL statement (a named
// prepared statement through `pg`, pool of 20 like the service's, generic plans) whose json
// aggregation already is the response body, in the service's response shape: the Memories tab's
// fields per record (instruments, provenance, links, freshness, cursor), pageInfo and the resolved
// window. The cursor is the position part only (the service's page cursors also carry the window and
// a filter digest). No GraphQL, no auth, no parsing of the result: the least a server can do.
//
// POST / with JSON {op: 'page', agentId, type?, window?: true, after?: {createdAt, id}} or
// {op: 'types', agentId}: the 24 h window is `now() − 24 h ≤ createdAt < now()`, as LAST_24H.
import http from 'node:http';
import pg from 'pg';

const databaseUrl = process.argv[2];
if (!databaseUrl) throw new Error('usage: browse-floor.ts <databaseUrl>');
// Generic plans: PostgreSQL would otherwise re-plan every execution of these statements (their
// custom plans look cheaper for the big agent), ~1 ms of planning per request. Every join names the
// agent, as the service's statements do (D2): the keys lead with it, and a join by id alone would
// scan the whole table per record. The service's statement_timeout bounds a runaway statement, so
// none outlives its round into the next side's.
const pool = new pg.Pool({
  connectionString: databaseUrl,
  max: 20,
  options: '-c plan_cache_mode=force_generic_plan',
  statement_timeout: 2000,
});

const iso = (column: string) => `to_char((${column}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
/** The service's cursor: base64url of `createdAt|id|seq`. */
const cursor = `rtrim(translate(replace(encode(convert_to(${iso('m."createdAt"')} || '|' || m.id || '|' || m.seq, 'UTF8'), 'base64'),
                 E'\\n', ''), '+/', '-_'), '=')`;

interface PageRequest {
  op: 'page';
  agentId: string;
  type?: string;
  window?: boolean;
  after?: { createdAt: string; id: string };
}
interface TypesRequest {
  op: 'types';
  agentId: string;
}

/** The page statement for one combination of filters (each its own prepared statement). */
function pageSql(request: PageRequest): { name: string; text: string; values: unknown[] } {
  const values: unknown[] = [request.agentId];
  const where = ['m."agentId" = $1'];
  if (request.type) where.push(`m.type = $${values.push(request.type)}`);
  if (request.window) where.push(`m."createdAt" >= now() - interval '24 hours' AND m."createdAt" < now()`);
  if (request.after) {
    const at = `$${values.push(request.after.createdAt)}::timestamptz`;
    where.push(
      `m."createdAt" <= ${at} AND (m."createdAt", m.id) < (${at}, $${values.push(request.after.id)}::uuid)`,
    );
  }
  const windowJson = request.window
    ? `json_build_object('from', ${iso(`now() - interval '24 hours'`)}, 'to', ${iso('now()')})`
    : 'NULL::json';
  const text = `
    WITH page AS (
      SELECT m.* FROM "Memory" m WHERE ${where.join(' AND ')}
       ORDER BY m."createdAt" DESC, m.id DESC LIMIT 51),
    shown AS (SELECT * FROM page ORDER BY "createdAt" DESC, id DESC LIMIT 50),
    edge AS (
      SELECT m."createdAt", m.id, ${cursor} AS cursor,
             json_build_object(
               'id', m.id, 'type', m.type, 'scope', m.scope,
               'instruments', ARRAY(SELECT t."instrumentId" FROM "MemoryTarget" t
                                WHERE t."agentId" = m."agentId" AND t."memoryId" = m.id ORDER BY t.position),
               'content', m.content, 'metadata', m.metadata, 'timeframe', m.timeframe,
               'createdAt', ${iso('m."createdAt"')}, 'expiresAt', ${iso('m."expiresAt"')}, 'expiryPolicy', m."expiryPolicy",
               'freshness', CASE WHEN m."expiresAt" IS NULL OR now() < m."expiresAt" THEN 'FRESH' ELSE 'STALE' END,
               'provenance', CASE WHEN r.id IS NOT NULL THEN json_build_object(
                   'runId', r.id, 'producerId', r."producerId", 'producerName', p.name, 'kind', r.kind,
                   'schedule', r.schedule, 'evidenceBoundary', ${iso('r."evidenceBoundary"')}, 'runStatus', r.status) END,
               'links', coalesce((SELECT json_agg(json_build_object('linkType', l."linkType", 'targetMemoryId', l."targetMemoryId")
                                          ORDER BY l.position) FROM "MemoryLink" l
                                  WHERE l."agentId" = m."agentId" AND l."memoryId" = m.id), '[]')) AS node
        FROM shown m
        LEFT JOIN "Run" r ON r."agentId" = m."agentId" AND r.id = m."sourceRunId"
        LEFT JOIN "Producer" p ON p."agentId" = r."agentId" AND p.id = r."producerId")
    SELECT json_build_object('data', json_build_object('memories', json_build_object(
             'edges', coalesce((SELECT json_agg(json_build_object('cursor', cursor, 'node', node) ORDER BY "createdAt" DESC, id DESC)
                                  FROM edge), '[]'),
             'pageInfo', json_build_object('hasNextPage', (SELECT count(*) > 50 FROM page),
                                           'endCursor', (SELECT cursor FROM edge ORDER BY "createdAt", id LIMIT 1)),
             'window', ${windowJson})))::text AS body`;
  const name = `page_${request.type ? 't' : ''}${request.window ? 'w' : ''}${request.after ? 'a' : ''}`;
  return { name, text, values };
}

const TYPES_SQL = `
  SELECT json_build_object('data', json_build_object('memoryTypes', coalesce(json_agg(
           json_build_object('type', type, 'count', count) ORDER BY type COLLATE "C"), '[]')))::text AS body
    FROM (SELECT type, count(*)::int AS count FROM "Memory"
           WHERE "agentId" = $1 AND "createdAt" >= now() - interval '24 hours' AND "createdAt" < now()
           GROUP BY type) t`;

async function answer(request: PageRequest | TypesRequest): Promise<string> {
  const query =
    request.op === 'types' ? { name: 'types', text: TYPES_SQL, values: [request.agentId] } : pageSql(request);
  const result = await pool.query<{ body: string }>(query);
  return result.rows[0]!.body;
}

const server = http.createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    answer(JSON.parse(Buffer.concat(chunks).toString()) as PageRequest | TypesRequest).then(
      (body) => response.writeHead(200, { 'content-type': 'application/json' }).end(body),
      (error: Error) => response.writeHead(500).end(JSON.stringify({ error: error.message })),
    );
  });
});

server.listen(0, '127.0.0.1', () => {
  const address = server.address() as { port: number };
  console.log(`listening on http://127.0.0.1:${address.port}`);
});
process.once('SIGTERM', () => {
  server.close();
  void pool.end().then(() => process.exit(0));
});

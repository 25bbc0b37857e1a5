// What each server of the browse bench is asked for each operation, and how its answer is read.
//
// - service: the Memories tab's own documents (src/web/queries.ts): OLDER_PAGE_QUERY (with
//   after = null for a first page; the tab's first-page document adds memoryTypes, measured on its
//   own as `types`) and TYPE_COUNTS_QUERY, with the big agent's operator token. Per record: id, type,
//   scope, instruments, content, metadata, timeframe, createdAt, expiresAt, expiryPolicy, freshness,
//   provenance (run, producer name, kind, schedule, evidence boundary, run status), links, cursor;
//   pageInfo and the resolved window.
// - PostGraphile: allMemories(condition, orderBy: [CREATED_AT_DESC, ROW_ID_DESC], first: 50) with the
//   record's columns and its targets' instrument ids (the issue's comparison); no provenance, links
//   or freshness. "PostGraphile, same fields" adds the run with its producer's name and the links
//   (freshness still left to the client), for the first page only.
// - raw pg: browse-floor.ts, the service's response from one SQL statement.
import { OLDER_PAGE_QUERY, TYPE_COUNTS_QUERY } from '../src/web/queries.js';
import { BROWSE_OPERATOR_TOKEN } from './browse-data.js';

export const PAGE = 50;
/** The type of the one-type operations (15 % of the records). */
const ONE_TYPE = 'funding';

export interface Op {
  key: 'first' | 'page2' | 'all' | 'window' | 'types';
  label: string;
  type?: string;
  window?: boolean;
  page2?: boolean;
}

export const BROWSE_OPS: Op[] = [
  { key: 'first', label: 'first page, one type', type: ONE_TYPE },
  { key: 'page2', label: 'page 2, one type', type: ONE_TYPE, page2: true },
  { key: 'all', label: 'first page, all types' },
  { key: 'window', label: '24 h window, all types', window: true },
];
export const TYPES_OP: Op = { key: 'types', label: '24 h window, big agent', window: true };

/** Where page 2 continues: an opaque cursor, or (raw pg) the last row's keys. */
type After = string | { createdAt: string; id: string };

export interface Side {
  name: string;
  url: string;
  pid: number;
  headers: Record<string, string>;
  supports(op: Op): boolean;
  body(op: Op, after?: After): string;
  /** What all sides must agree on: the page's record ids in order, or the type counts. */
  digest(op: Op, json: any): string;
  after(json: any): After;
}

/** A page's record ids in order, each with its instruments in order. */
const pageDigest = (records: [string, string[]][]) =>
  records.map(([id, instruments]) => `${id}:${instruments.join('+')}`).join(',');

const WINDOW = { rolling: 'LAST_24H', timeZone: 'UTC' };

export function serviceSide(url: string, pid: number, name = 'service'): Side {
  return {
    name,
    url: `${url}/graphql`,
    pid,
    headers: { authorization: `Bearer ${BROWSE_OPERATOR_TOKEN}` },
    supports: () => true,
    body: (op, after) =>
      JSON.stringify(
        op.key === 'types'
          ? { query: TYPE_COUNTS_QUERY, variables: { countFilter: { window: WINDOW } } }
          : {
              query: OLDER_PAGE_QUERY,
              variables: {
                filter: {
                  ...(op.type ? { types: [op.type] } : {}),
                  ...(op.window ? { window: WINDOW } : {}),
                },
                first: PAGE,
                after: op.page2 ? after : null,
              },
            },
      ),
    digest: (op, json) =>
      op.key === 'types'
        ? JSON.stringify(json.data.memoryTypes)
        : pageDigest(json.data.memories.edges.map((e: any) => [e.node.id, e.node.instruments])),
    after: (json) => json.data.memories.pageInfo.endCursor,
  };
}

/** The service asked what PostGraphile's side is asked: the record's columns and its targets, nothing else. */
const PEER_FIELDS_QUERY = `
  query PeerFields($filter: MemoryFilter, $first: Int, $after: String) {
    memories(filter: $filter, first: $first, after: $after) {
      edges { cursor node { id type scope instruments content metadata timeframe createdAt expiresAt expiryPolicy } }
      pageInfo { hasNextPage endCursor }
    }
  }
`;

export const SAME_FIELDS_AS_PEER = 'service with PostGraphile’s fields';

/** The other side of the equal-work comparison: every page the PostGraphile side serves. */
export function serviceWithPeerFieldsSide(url: string, pid: number): Side {
  const side = serviceSide(url, pid, SAME_FIELDS_AS_PEER);
  return {
    ...side,
    supports: (op) => op.key !== 'types',
    body: (op, after) =>
      JSON.stringify({
        query: PEER_FIELDS_QUERY,
        variables: {
          filter: { ...(op.type ? { types: [op.type] } : {}), ...(op.window ? { window: WINDOW } : {}) },
          first: PAGE,
          after: op.page2 ? after : null,
        },
      }),
  };
}

const RECORD_FIELDS = `rowId type scope content metadata timeframe createdAt expiresAt expiryPolicy
  memoryTargetsByAgentIdAndMemoryId(orderBy: PRIMARY_KEY_ASC) { nodes { instrumentId } }`;
const SERVICE_FIELDS = `sourceRunId
  runByAgentIdAndSourceRunId { kind schedule evidenceBoundary status producerByAgentIdAndProducerId { name } }
  memoryLinksByAgentIdAndMemoryId(orderBy: PRIMARY_KEY_ASC) { nodes { linkType targetMemoryId } }`;

/** One document per operation, so no condition is ever `null` (which PostGraphile reads as IS NULL). */
function postgraphileDocument(op: Op, fields: string): string {
  const variables = ['$agentId: UUID!'];
  const condition = ['agentId: $agentId'];
  if (op.type) {
    variables.push('$type: String!');
    condition.push('type: $type');
  }
  if (op.window) {
    variables.push('$from: Datetime!');
    condition.push('createdAtFrom: $from');
  }
  if (op.page2) variables.push('$after: Cursor!');
  return `query(${variables.join(', ')}) {
  allMemories(condition: { ${condition.join(', ')} }, orderBy: [CREATED_AT_DESC, ROW_ID_DESC], first: ${PAGE}${op.page2 ? ', after: $after' : ''}) {
    edges { cursor node { ${fields} } }
    pageInfo { hasNextPage endCursor }
  }
}`;
}

export function postgraphileSide(url: string, pid: number, agentId: string, sameFields = false): Side {
  return {
    name: sameFields ? 'PostGraphile with the service’s fields' : 'PostGraphile',
    url: `${url}/graphql`,
    pid,
    headers: {},
    supports: (op) => op.key !== 'types' && (!sameFields || op.key === 'first'),
    body: (op, after) =>
      JSON.stringify({
        query: postgraphileDocument(op, sameFields ? `${RECORD_FIELDS} ${SERVICE_FIELDS}` : RECORD_FIELDS),
        variables: {
          agentId,
          ...(op.type ? { type: op.type } : {}),
          // The service resolves LAST_24H per request; this is resolved when the round's body is made.
          ...(op.window ? { from: new Date(Date.now() - 86_400_000).toISOString() } : {}),
          ...(op.page2 ? { after } : {}),
        },
      }),
    digest: (_op, json) =>
      pageDigest(
        json.data.allMemories.edges.map((e: any) => [
          e.node.rowId,
          e.node.memoryTargetsByAgentIdAndMemoryId.nodes.map((t: any) => t.instrumentId),
        ]),
      ),
    after: (json) => json.data.allMemories.pageInfo.endCursor,
  };
}

export function floorSide(url: string, pid: number, agentId: string): Side {
  return {
    name: 'raw pg',
    url,
    pid,
    headers: {},
    supports: () => true,
    body: (op, after) =>
      JSON.stringify(
        op.key === 'types'
          ? { op: 'types', agentId }
          : { op: 'page', agentId, type: op.type, window: op.window, after: op.page2 ? after : undefined },
      ),
    digest: (op, json) =>
      op.key === 'types'
        ? JSON.stringify(json.data.memoryTypes)
        : pageDigest(json.data.memories.edges.map((e: any) => [e.node.id, e.node.instruments])),
    after: (json) => {
      const last = json.data.memories.edges.at(-1).node;
      return { createdAt: last.createdAt, id: last.id };
    },
  };
}

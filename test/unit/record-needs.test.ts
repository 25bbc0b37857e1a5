// The parts of a record a selection reads are worked out from the document once,
// by recordNeeds — every Memory field is classified, fragments and aliases count, and a hot
// document costs a map lookup.
import {
  getNamedType,
  isObjectType,
  parse,
  type FieldNode,
  type GraphQLResolveInfo,
  type OperationDefinitionNode,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/schema/index.js';
import { MEMORY_FIELD_PARTS, recordNeeds } from '../../src/schema/record-needs.js';

const operator = { kind: 'operator', agentId: 'a', tokenKey: 'k', operatorTokenId: 'o' } as const;

/** The info a resolver of the operation's first root field would see. */
function infoOf(document: string): GraphQLResolveInfo {
  const parsed = parse(document);
  const operation = parsed.definitions.find(
    (d): d is OperationDefinitionNode => d.kind === 'OperationDefinition',
  )!;
  const fragments = Object.fromEntries(
    parsed.definitions.flatMap((d) => (d.kind === 'FragmentDefinition' ? [[d.name.value, d]] : [])),
  );
  const field = operation.selectionSet.selections[0] as FieldNode;
  return { fieldNodes: [field], fragments } as unknown as GraphQLResolveInfo;
}

describe('recordNeeds: selection planning without per-field wrappers', () => {
  it('classifies every field of the Memory type, and nothing else', () => {
    const memory = schema.getType('Memory');
    if (!isObjectType(memory)) throw new Error('Memory is not an object type');
    const fields = Object.keys(memory.getFields()).sort();
    expect(
      Object.keys(MEMORY_FIELD_PARTS)
        .filter((name) => name !== '__typename')
        .sort(),
    ).toEqual(fields);
    expect(getNamedType(memory.getFields().linkedFrom!.type).name).toBe('MemoryBacklink');
  });

  it('loads only the small columns for a small selection', () => {
    const info = infoOf('{ memories { edges { cursor node { id type createdAt freshness } } } }');
    expect(recordNeeds(info, operator, ['edges', 'node'])).toEqual({
      content: false,
      metadata: false,
      targets: false,
      links: false,
      provenance: false,
      backlinks: null,
    });
  });

  it('follows named and inline fragments and aliases along the path and on the record', () => {
    const info = infoOf(`
      query { memories { ...E } }
      fragment E on MemoryConnection { edges { ... on MemoryEdge { n: node { ...R instruments } } } }
      fragment R on Memory { body: content provenance { runId } ... on Memory { links { linkType } } }`);
    expect(recordNeeds(info, operator, ['edges', 'node'])).toEqual({
      content: true,
      metadata: false,
      targets: true,
      links: true,
      provenance: true,
      backlinks: null,
    });
  });

  it('asks for backlinks under the caller’s read rules (§1) only when linkedFrom is selected', () => {
    const info = infoOf('{ memory(id: "x") { linkedFrom { sourceMemoryId } } }');
    const trading = {
      kind: 'run',
      agentId: 'a',
      tokenKey: 'k',
      run: {
        id: 'r',
        agentId: 'a',
        producerId: 'p',
        producerName: 'n',
        kind: 'TRADING',
        schedule: null,
        evidenceBoundary: null,
      },
    } as const;
    expect(recordNeeds(info, operator).backlinks).toEqual({ agentId: 'a' });
    expect(recordNeeds(info, trading).backlinks).toEqual({
      agentId: 'a',
      producerId: 'p',
      type: 'trading_decision',
    });
    expect(() => recordNeeds(info, null)).toThrow(/without a caller/);
  });

  it('works a document out once: the same field node answers from the cache', () => {
    const info = infoOf('{ memory(id: "x") { content metadata } }');
    const first = recordNeeds(info, operator);
    const fieldNode = info.fieldNodes[0]!;
    // A changed document object would be a different node: mutating this one shows the cache is used.
    (fieldNode.selectionSet!.selections as unknown as unknown[]).length = 0;
    expect(recordNeeds(info, operator)).toEqual(first);
    expect(recordNeeds(infoOf('{ memory(id: "x") { id } }'), operator).content).toBe(false);
  });

  it('refuses a Memory field it does not know rather than leave it unloaded', () => {
    expect(() => recordNeeds(infoOf('{ memory(id: "x") { secret } }'), operator)).toThrow(
      /does not know Memory.secret/,
    );
  });
});

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { printedSchema, schemaFile } from '../../src/schema/print.js';

describe('schema.graphql', () => {
  it('is exactly the printed Pothos schema (run `npm run schema:print` after changing the schema)', () => {
    expect(readFileSync(schemaFile, 'utf8')).toBe(printedSchema());
  });

  it('contains every name the API contract fixes', () => {
    const sdl = printedSchema();
    for (const fragment of [
      'scalar DateTime',
      'scalar Date',
      'scalar JSON',
      'scalar UUID',
      'createAgent(input: CreateAgentInput!): Agent!',
      'upsertInstrument(input: UpsertInstrumentInput!): Instrument!',
      'setAgentInstruments(agentId: UUID!, instrumentIds: [String!]!): Agent!',
      'createProducer(input: CreateProducerInput!): Producer!',
      'setProducerEnabled(enabled: Boolean!, producerId: UUID!): Producer!',
      'startRun(input: StartRunInput!): StartRunPayload!',
      'finishRun(runId: UUID!, status: RunStatus!): Run!',
      'createOperatorToken(agentId: UUID!, label: String): OperatorTokenPayload!',
      'revokeOperatorToken(id: UUID!): OperatorToken!',
      'agents: [Agent!]!',
      'agent(id: UUID!): Agent',
      'viewer: Viewer!',
      'importMemories(input: [ImportMemoryInput!]!): [Memory!]!',
      'createMemory(input: CreateMemoryInput!): CreateMemoryResult!',
      'memory(id: UUID!): Memory',
      'interface MemoryWriteError',
    ]) {
      expect(sdl).toContain(fragment);
    }
  });
});

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { printSchema } from 'graphql';
import { schema } from './index.js';

export const schemaFile = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../schema.graphql');

/** The checked-in SDL: sorted by the schema build, printed with a trailing newline. */
export function printedSchema(): string {
  return `${printSchema(schema)}\n`;
}

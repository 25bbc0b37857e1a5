// npm run schema:print — writes schema.graphql (sorted) from the Pothos schema. A test fails when it is stale.
import { writeFileSync } from 'node:fs';
import { printedSchema, schemaFile } from '../src/schema/print.js';

writeFileSync(schemaFile, printedSchema());
console.log(`wrote ${schemaFile}`);

// npm run db:diff -- <name>: writes the next migration from the changes to prisma/schema.prisma.
// The history is replayed into an in-memory PGlite shadow database, so no server is needed.
import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { writeNextMigration } from '../src/store/migrate.js';

const name = process.argv[2];
if (!name) {
  console.error('usage: npm run db:diff -- <migration_name>');
  process.exit(2);
}
const folder = await writeNextMigration(new PrismaPGlite(new PGlite()), name);
console.log(
  folder
    ? `wrote ${folder}/migration.sql`
    : 'schema.prisma and the migration history agree: nothing to write',
);

// npm run db:migrate: applies pending migrations to DATABASE_URL (or the embedded database in DATA_DIR).
import path from 'node:path';
import { openDatabase } from '../src/store/db.js';

const db = await openDatabase({
  databaseUrl: process.env.DATABASE_URL || undefined,
  dataDir: path.resolve(process.env.DATA_DIR || './.data'),
});
try {
  const applied = await db.migrate();
  console.log(applied.length ? `applied: ${applied.join(', ')}` : 'no pending migrations');
} finally {
  await db.close();
}

// npm run db:migrate: applies pending migrations to the database `npm start` uses (DATABASE_URL, or the
// embedded database in DATA_DIR; the environment over `.env`), without needing an admin token.
import { ConfigError, loadDatabaseConfig } from '../src/config.js';
import { openDatabase } from '../src/store/db.js';

let config;
try {
  config = loadDatabaseConfig();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(`configuration error: ${error.message}`);
  process.exit(2);
}
const db = await openDatabase(config);
try {
  const applied = await db.migrate();
  console.log(applied.length ? `applied: ${applied.join(', ')}` : 'no pending migrations');
} finally {
  await db.close();
}

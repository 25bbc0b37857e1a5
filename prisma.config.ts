import { defineConfig } from 'prisma/config';

// The CLI is used only for `prisma generate`; migrations run through the WebAssembly schema
// engine (src/store/migrate.ts) because the native engine cannot be downloaded everywhere.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
});

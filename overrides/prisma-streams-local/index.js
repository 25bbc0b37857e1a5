// Stands in for @prisma/streams-local (see package.json): loading it means `prisma dev`, unsupported here.
throw new Error(
  '@prisma/streams-local is a stub in this project (overrides/prisma-streams-local): `prisma dev` needs Node >= 22; use the embedded PGlite or PostgreSQL',
);

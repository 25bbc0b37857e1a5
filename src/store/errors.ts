// How the databases report a constraint violation; the typed failures themselves are ../domain/errors.ts.
import { Prisma } from './generated/prisma/client.js';

/** A unique index refused the row: SQLSTATE 23505 from either driver, or Prisma's P2002. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    code === '23505' || (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002')
  );
}

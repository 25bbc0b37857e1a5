// How the databases report a constraint violation; the typed failures themselves are ../domain/errors.ts.
import { QueryTimeoutError } from '../domain/errors.js';
import { Prisma } from './generated/prisma/client.js';

/** A unique index refused the row: SQLSTATE 23505 from either driver, or Prisma's P2002. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    code === '23505' || (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002')
  );
}

/**
 * S7: Prisma's statements run on a pool whose sessions carry the read bound too; a statement the
 * server stopped there (SQLSTATE 57014, reported by the driver adapter inside Prisma's error) is the
 * same QueryTimeoutError as on the direct SQL paths.
 */
export function prismaQueryTimeout(error: unknown): QueryTimeoutError | null {
  if (!(error instanceof Prisma.PrismaClientKnownRequestError)) return null;
  const adapterError: unknown = error.meta?.driverAdapterError;
  const cause: unknown = adapterError instanceof Error ? adapterError.cause : undefined;
  const code = cause && typeof cause === 'object' && 'code' in cause ? cause.code : undefined;
  return code === '57014' ? new QueryTimeoutError() : null;
}

// Every statement the service sends to the database, for tests that prove round trips (Pothos'
// way: a claim such as "one round trip" is a test). Prisma's statements are seen where they become
// SQL, in the driver adapter; the hot paths' direct SQL where it leaves `Sql`. A Prisma `$extends`
// recorder would see neither the direct SQL (token lookups, the write) nor how many statements one
// operation becomes (a findMany with relations is one per relation). Off unless a test asks.
import type {
  SqlDriverAdapter,
  SqlMigrationAwareDriverAdapterFactory,
  SqlQuery,
  SqlQueryable,
  Transaction,
} from '@prisma/driver-adapter-utils';
import type { Sql } from './db.js';

export interface ObservedStatement {
  /** `prisma`: a Prisma Client operation (model query or `$queryRaw`); `sql`: the direct `Sql` paths. */
  via: 'prisma' | 'sql';
  text: string;
  /** The values bound to its parameters, as sent (D3: a test EXPLAINs the statement with them). */
  values?: readonly unknown[];
}

export type StatementListener = (statement: ObservedStatement) => void;

/**
 * Transaction boundaries are reported by the observer itself, the same on both databases: the
 * adapters send BEGIN on their own connection (pg) or inside PGlite, and COMMIT either through
 * `executeRaw` (pg) or as a "phantom" query the engine never sends (PGlite).
 */
const BOUNDARY = /^\s*(COMMIT|ROLLBACK)\s*$/i;

function observeQueryable<T extends SqlQueryable>(
  inner: T,
  note: Note,
  replaced: Record<string, unknown> = {},
): T {
  const send =
    (method: 'queryRaw' | 'executeRaw') =>
    (query: SqlQuery): Promise<unknown> => {
      if (!BOUNDARY.test(query.sql)) note(query.sql, query.args);
      return inner[method](query);
    };
  const overrides = new Map<PropertyKey, unknown>(
    Object.entries({ queryRaw: send('queryRaw'), executeRaw: send('executeRaw'), ...replaced }),
  );
  // A Proxy keeps the adapters' other (optional) methods; they run on the adapter itself.
  return new Proxy(inner, {
    get(target, key) {
      if (overrides.has(key)) return overrides.get(key);
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

type Note = (text: string, values?: readonly unknown[]) => void;

function observeTransaction(tx: Transaction, note: Note): Transaction {
  return observeQueryable(tx, note, {
    commit: async () => {
      note('COMMIT');
      await tx.commit();
    },
    rollback: async () => {
      note('ROLLBACK');
      await tx.rollback();
    },
  });
}

function observeAdapter(adapter: SqlDriverAdapter, note: Note): SqlDriverAdapter {
  return observeQueryable(adapter, note, {
    startTransaction: async (...args: Parameters<SqlDriverAdapter['startTransaction']>) => {
      note('BEGIN');
      return observeTransaction(await adapter.startTransaction(...args), note);
    },
  });
}

/** The client's adapter factory, reporting what Prisma sends; the migration engine keeps the plain one. */
export function observePrisma(
  factory: SqlMigrationAwareDriverAdapterFactory,
  listener: StatementListener,
): SqlMigrationAwareDriverAdapterFactory {
  const note: Note = (text, values) => listener({ via: 'prisma', text, values });
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => observeAdapter(await factory.connect(), note),
    connectToShadowDb: async () => observeAdapter(await factory.connectToShadowDb(), note),
  };
}

/**
 * Tests only: runs before a direct SQL statement is sent, on every scope of the database; it may
 * delay the statement or fail it (fault injection) without reaching into the service's objects.
 */
export type StatementHook = (statement: {
  text: string;
  params: readonly unknown[];
  name: string | undefined;
}) => Promise<void> | void;

/** Direct SQL, reporting each statement before it is sent (and running the test hook, if any). */
export function observeSql(sql: Sql, listener?: StatementListener, hook?: StatementHook): Sql {
  return {
    query: async (text, params, name) => {
      listener?.({ via: 'sql', text, values: params ?? [] });
      await hook?.({ text, params: params ?? [], name });
      return sql.query(text, params, name);
    },
  };
}

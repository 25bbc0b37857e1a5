/** Set to run the suite against PostgreSQL (CI runs it both ways). */
export const testDatabaseUrl = process.env.TEST_DATABASE_URL || undefined;

export function withDatabaseName(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

// Instants a timestamp column can hold and the drivers can write (W10): years 0001–9999 UTC; PostgreSQL has no year 0.
export const EARLIEST_INSTANT_MS = Date.parse('0001-01-01T00:00:00.000Z');
export const LATEST_INSTANT_MS = Date.parse('9999-12-31T23:59:59.999Z');

/** A valid Date inside the storable range; anything else must never reach the database. */
export function isStorableInstant(value: unknown): value is Date {
  if (!(value instanceof Date)) return false;
  const ms = value.getTime();
  return ms >= EARLIEST_INSTANT_MS && ms <= LATEST_INSTANT_MS;
}

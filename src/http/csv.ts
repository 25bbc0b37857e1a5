// RFC 4180 text for the export (no CSV library is installed; this is the whole of what the export needs):
// fields quoted when they hold a comma, quote, CR or LF, quotes doubled, records ended by CRLF.

/**
 * Spreadsheets run a cell that begins with one of these as a formula (CSV injection, OWASP): such a
 * cell gets a leading `'`, which spreadsheets show as text and do not display.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

const NEEDS_QUOTES = /[",\r\n]/;

/** One field: guarded against formula injection, then quoted when RFC 4180 requires it. */
export function csvField(value: string): string {
  const guarded = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(guarded) ? `"${guarded.replace(/"/g, '""')}"` : guarded;
}

/** One record, CRLF-terminated. */
export function csvRecord(fields: readonly string[]): string {
  return `${fields.map(csvField).join(',')}\r\n`;
}

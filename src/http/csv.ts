// RFC 4180 text for the export (no CSV library is installed; this is the whole of what the export needs):
// fields quoted when they hold a comma, quote, CR or LF, quotes doubled, records ended by CRLF.

/**
 * S13: spreadsheets run a cell that begins with `= + - @`, a tab or a CR as a formula (CSV
 * injection, OWASP), and a locale that splits on `;` or a tab starts a cell after one inside ours.
 */
const FORMULA_RISK = /^[=+\-@\t\r]|[,;\t][=+\-@\t\r]/;

const NEEDS_QUOTES = /[",\r\n]/;

const quoted = (text: string) => `"${text.replace(/"/g, '""')}"`;

/**
 * One field. S13: a risky one is quoted (one cell in every locale) with a leading `'` (text, not
 * displayed); any other is quoted only when RFC 4180 requires it.
 */
export function csvField(value: string): string {
  if (FORMULA_RISK.test(value)) return quoted(`'${value}`);
  return NEEDS_QUOTES.test(value) ? quoted(value) : value;
}

/** One record, CRLF-terminated. */
export function csvRecord(fields: readonly string[]): string {
  return `${fields.map(csvField).join(',')}\r\n`;
}

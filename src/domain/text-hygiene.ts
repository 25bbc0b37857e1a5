// Text hygiene (W10): which strings PostgreSQL can store as text, and how messages quote caller input.
import type { FieldError } from './types.js';

/** W10: an error message quotes at most this many characters of any input. */
export const QUOTE_MAX_CHARS = 100;

/**
 * PostgreSQL text cannot hold U+0000, and UTF-8 cannot encode a lone surrogate (the drivers would
 * silently store U+FFFD instead), so neither can be stored exactly (W10). Code-unit regex, no `u` flag.
 */
const UNSTORABLE_TEXT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function isStorableText(value: string): boolean {
  return !UNSTORABLE_TEXT.test(value);
}

/** A named text input: one string, a list of strings (named `field[i]` in the message), or absent. */
export type TextInput = readonly [field: string, value: string | readonly string[] | null | undefined];

/**
 * W10: the first input holding text PostgreSQL cannot store, as a validation error naming its field
 * (a list names the list; the message names the element). Null when every value is storable.
 */
export function findUnstorableText(inputs: readonly TextInput[]): FieldError | null {
  for (const [field, value] of inputs) {
    if (value === null || value === undefined) continue;
    if (typeof value === 'string') {
      if (!isStorableText(value)) return unstorable(field, field);
      continue;
    }
    const index = value.findIndex((item) => typeof item === 'string' && !isStorableText(item));
    if (index >= 0) return unstorable(field, `${field}[${index}]`);
  }
  return null;
}

function unstorable(field: string, element: string): FieldError {
  return {
    field,
    message: `${element} contains U+0000 or an unpaired surrogate, which cannot be stored as text; remove it (metadata may carry any JSON).`,
  };
}

/** W10: the input as JSON (a string JSON-quoted) showing at most QUOTE_MAX_CHARS characters of it, `…` marking a cut. */
export function quoteInput(value: unknown): string {
  if (typeof value === 'string') {
    return value.length <= QUOTE_MAX_CHARS ? JSON.stringify(value) : `${JSON.stringify(cutAt(value))}…`;
  }
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = Object.prototype.toString.call(value);
  }
  return text.length <= QUOTE_MAX_CHARS ? text : `${cutAt(text)}…`;
}

/** The first QUOTE_MAX_CHARS code units, never splitting a surrogate pair in two. */
function cutAt(text: string): string {
  const cut = text.slice(0, QUOTE_MAX_CHARS);
  return /[\ud800-\udbff]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/**
 * W10 for messages we do not write ourselves (GraphQL's variable coercion echoes whole values):
 * every double-quoted run longer than QUOTE_MAX_CHARS is cut to that length.
 */
export function boundQuotedInput(message: string): string {
  if (message.length <= QUOTE_MAX_CHARS) return message;
  return message.replace(/"((?:[^"\\]|\\.)*)"/g, (quoted: string, inner: string) => {
    if (inner.length <= QUOTE_MAX_CHARS) return quoted;
    // A dangling backslash would escape the closing quote: drop it.
    const cut = cutAt(inner).replace(/\\+$/, (slashes) =>
      slashes.slice(0, slashes.length - (slashes.length % 2)),
    );
    return `"${cut}"…`;
  });
}

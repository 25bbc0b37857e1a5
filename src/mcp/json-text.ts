// JSON text of a tool's arguments without recursion: the service, not the transport, judges them (M7).

type Frame =
  | { kind: 'array'; items: unknown[]; next: number }
  | { kind: 'object'; entries: [string, unknown][]; next: number; wrote: boolean };

/** What JSON.stringify writes for a value, or undefined where it would leave the member out. */
function scalarText(value: unknown): string | undefined {
  if (value === null) return 'null';
  if (typeof value === 'string' || typeof value === 'boolean') return JSON.stringify(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (typeof value === 'bigint') throw new TypeError('Do not know how to serialize a BigInt');
  return undefined;
}

/**
 * JSON.stringify's text for plain JSON data, built with an explicit stack: metadata nested 10,000
 * levels reaches the service, which answers W7's validation error, instead of overflowing here.
 */
export function jsonText(root: unknown): string {
  const out: string[] = [];
  const stack: Frame[] = [];
  // Writes a value's scalar text, or opens its container; false when it is to be left out.
  const open = (raw: unknown): boolean => {
    const value =
      raw && typeof raw === 'object' && typeof (raw as { toJSON?: unknown }).toJSON === 'function'
        ? (raw as { toJSON(): unknown }).toJSON()
        : raw;
    if (Array.isArray(value)) {
      out.push('[');
      stack.push({ kind: 'array', items: value, next: 0 });
    } else if (value && typeof value === 'object') {
      out.push('{');
      stack.push({ kind: 'object', entries: Object.entries(value), next: 0, wrote: false });
    } else {
      const text = scalarText(value);
      if (text === undefined) return false;
      out.push(text);
    }
    return true;
  };
  // A root JSON.stringify would leave out (undefined, a function) is written as null.
  if (!open(root)) out.push('null');
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    if (frame.kind === 'array') {
      if (frame.next === frame.items.length) {
        stack.pop();
        out.push(']');
        continue;
      }
      if (frame.next > 0) out.push(',');
      if (!open(frame.items[frame.next++])) out.push('null');
      continue;
    }
    if (frame.next === frame.entries.length) {
      stack.pop();
      out.push('}');
      continue;
    }
    const [key, value] = frame.entries[frame.next++]!;
    const at = out.length;
    out.push(`${frame.wrote ? ',' : ''}${JSON.stringify(key)}:`);
    if (open(value)) frame.wrote = true;
    else out.length = at;
  }
  return out.join('');
}

// M10: an argument object's keys are checked before its values — an unknown key is refused naming
// the nearest known one (`idempotencyKey` ⇒ `idempotency_key`) instead of being dropped, and a
// missing required key is reported as missing, not as a malformed value. MCP tools and the REST
// write (POST /api/v1/memories) use this one check.

/** The keys an argument object may have; `nested` describes an object (or each object of an array) under a key. */
export interface ArgumentShape {
  keys: readonly string[];
  required?: readonly string[];
  nested?: Readonly<Record<string, ArgumentShape>>;
}

export interface ArgumentKeyProblem {
  /** The path of the offending key: `idempotencyKey`, `links[0].target_memory_id`. */
  field: string;
  message: string;
}

const folded = (key: string) => key.toLowerCase().replace(/[_\-\s]/g, '');

/** Edit distance, bounded: the strings compared are argument names (a few dozen characters). */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** The known key an unknown one most likely meant: same letters in another case or spelling, else the closest. */
export function nearestKey(key: string, known: readonly string[]): string | null {
  const same = known.find((candidate) => folded(candidate) === folded(key));
  if (same) return same;
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const d = distance(folded(key), folded(candidate));
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return bestDistance <= Math.max(2, Math.floor(key.length / 3)) ? best : null;
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The first unknown or missing key of `value` (walked with `shape`), or null when every key is right. */
export function checkArgumentKeys(
  value: Record<string, unknown>,
  shape: ArgumentShape,
  path = '',
): ArgumentKeyProblem | null {
  for (const key of Object.keys(value)) {
    if (shape.keys.includes(key)) continue;
    const field = join(path, key);
    const nearest = nearestKey(key, shape.keys);
    return {
      field,
      message: `${field} is not a known argument${nearest ? `; did you mean ${join(path, nearest)}?` : ''} (known: ${shape.keys.join(', ')})`,
    };
  }
  for (const key of shape.required ?? []) {
    if (value[key] === undefined) return { field: join(path, key), message: `${join(path, key)} is missing` };
  }
  for (const [key, inner] of Object.entries(shape.nested ?? {})) {
    const nested = value[key];
    const items = Array.isArray(nested)
      ? nested.map((item, index) => [`${join(path, key)}[${index}]`, item] as const)
      : [[join(path, key), nested] as const];
    for (const [itemPath, item] of items) {
      if (!isObject(item)) continue;
      const problem = checkArgumentKeys(item, inner, itemPath);
      if (problem) return problem;
    }
  }
  return null;
}

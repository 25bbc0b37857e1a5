// SQL with named parameters: the statement text refers to `p.name`, which becomes `$n` by the name's
// place in ONE ordered list; binding takes an object keyed by the same names, so a statement's text,
// its parameter numbers and its values cannot drift apart.
export interface NamedStatement<Name extends string> {
  readonly text: string;
  /** The values in `$1…$n` order. */
  bind(values: Readonly<Record<Name, unknown>>): unknown[];
}

export function namedStatement<const Name extends string>(
  names: readonly Name[],
  build: (p: Readonly<Record<Name, string>>) => string,
): NamedStatement<Name> {
  if (new Set(names).size !== names.length) throw new Error(`duplicate parameter names: ${names.join(', ')}`);
  const placeholders = Object.fromEntries(names.map((name, index) => [name, `$${index + 1}`])) as Record<
    Name,
    string
  >;
  return { text: build(placeholders), bind: (values) => names.map((name) => values[name]) };
}

// S3: no accepted document may take more than 50 ms to parse and validate. graphql-js compares every
// pair of fields that can merge — same response name, same response path — which is quadratic in
// their number (OverlappingFieldsCanBeMerged). So the document is expanded once (fragments inlined,
// bounded) and refused before validation when those pairs, or its size, pass a budget.
import { GraphQLError, Kind, type DocumentNode, type SelectionSetNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/** Fields of one operation with every fragment spread expanded where it is used. */
export const MAX_EXPANDED_FIELDS = 2_000;
/** Σ over response paths of (fields at that path)²: the pairs validation may compare. */
export const MAX_MERGE_PAIRS = 2_000;

export function documentLimitsPlugin(): Plugin {
  return {
    onValidate({ params, setResult }) {
      const error = documentLimitError(params.documentAST);
      if (error) setResult([error]);
    },
  };
}

class TooComplex extends Error {}

export function documentLimitError(document: DocumentNode): GraphQLError | null {
  const fragments = new Map<string, SelectionSetNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION)
      fragments.set(definition.name.value, definition.selectionSet);
  }
  // The budgets span the whole document: validation checks every operation in it, not only the one run.
  let visited = 0;
  let pairs = 0;
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    const fieldsAtPath = new Map<string, number>();
    // Expands one selection set at `path`; each distinct spread once per set, as validation does.
    const expand = (set: SelectionSetNode, path: string, inFragments: ReadonlySet<string>): void => {
      const spread = new Set<string>();
      for (const selection of set.selections) {
        if (++visited > MAX_EXPANDED_FIELDS)
          throw new TooComplex(`more than ${MAX_EXPANDED_FIELDS} fields once fragments are expanded`);
        if (selection.kind === Kind.FIELD) {
          const fieldPath = `${path}.${(selection.alias ?? selection.name).value}`;
          const count = (fieldsAtPath.get(fieldPath) ?? 0) + 1;
          fieldsAtPath.set(fieldPath, count);
          pairs += 2 * count - 1; // count² grows by 2·count − 1
          if (pairs > MAX_MERGE_PAIRS) {
            throw new TooComplex(`too many fields can merge at "${fieldPath.slice(1, 100)}" and elsewhere`);
          }
          if (selection.selectionSet) expand(selection.selectionSet, fieldPath, inFragments);
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          expand(selection.selectionSet, path, inFragments);
        } else {
          const name = selection.name.value;
          const fragment = fragments.get(name);
          // Unknown and cyclic fragments are validation's to report.
          if (!fragment || spread.has(name) || inFragments.has(name)) continue;
          spread.add(name);
          expand(fragment, path, new Set([...inFragments, name]));
        }
      }
    };
    try {
      expand(definition.selectionSet, '', new Set());
    } catch (error) {
      if (!(error instanceof TooComplex)) throw error;
      return new GraphQLError(`Document too complex: ${error.message}`, {
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
      });
    }
  }
  return null;
}

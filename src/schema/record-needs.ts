// Which parts of a record a GraphQL selection reads (RecordNeeds), so that the one statement of
// ../store/record-rows.ts loads exactly those. Worked out from the document once per field node and
// path — Yoga caches parsed documents, so a hot query costs one map lookup — instead of a planner
// that wraps every field of every record (such wrappers cost 13 % of a page's CPU).
import {
  Kind,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLResolveInfo,
  type SelectionSetNode,
} from 'graphql';
import { linkedFromReadFilter } from '../auth/access.js';
import type { Caller } from '../auth/caller.js';
import type { RecordNeeds } from '../records/record-rows.js';

type Part = 'content' | 'metadata' | 'targets' | 'links' | 'provenance';

/** Every field of the Memory type: what it reads beyond the small columns (always loaded). */
export const MEMORY_FIELD_PARTS: Readonly<Record<string, Part | 'backlinks' | null>> = {
  __typename: null,
  id: null,
  agentId: null,
  type: null,
  scope: null,
  timeframe: null,
  createdAt: null,
  expiresAt: null,
  expiryPolicy: null,
  freshness: null,
  content: 'content',
  metadata: 'metadata',
  instruments: 'targets',
  links: 'links',
  provenance: 'provenance',
  linkedFrom: 'backlinks',
};

/** The parts a selection reads; `backlinks` says only whether `linkedFrom` is asked (its rules are the caller's). */
type SelectedParts = Readonly<Record<Part, boolean> & { backlinks: boolean }>;

/**
 * A memo of a pure function of the (immutable) document: what a field node selects never changes,
 * so one process-wide cache is safe for every server, as graphql-js memoises its own sub-field
 * collection by field nodes. It holds nothing a request, caller or server owns.
 */
const byFieldNode = new WeakMap<FieldNode, Map<string, SelectedParts>>();

/**
 * The needs of the records a resolver answers: `path` leads from its field to the Memory objects
 * (`['edges', 'node']` for a connection). `@skip`/`@include` are not evaluated: a conditionally
 * selected part is loaded anyway (more columns, never a missing one).
 */
export function recordNeeds(
  info: GraphQLResolveInfo,
  caller: Caller | null,
  path: readonly string[] = [],
): RecordNeeds {
  const parts = selectedParts(info, path);
  return { ...parts, backlinks: parts.backlinks ? linkedFromReadFilter(caller) : null };
}

function selectedParts(info: GraphQLResolveInfo, path: readonly string[]): SelectedParts {
  const [first] = info.fieldNodes;
  // Several nodes for one response key (merged fields) are rare; they are worked out each time.
  const cacheable = info.fieldNodes.length === 1 && first !== undefined;
  const key = path.join('.');
  const cached = cacheable ? byFieldNode.get(first)?.get(key) : undefined;
  if (cached) return cached;
  const parts = partsOf(info.fieldNodes, path, info.fragments);
  if (cacheable) {
    let forNode = byFieldNode.get(first);
    if (!forNode) byFieldNode.set(first, (forNode = new Map()));
    forNode.set(key, parts);
  }
  return parts;
}

function partsOf(
  fieldNodes: readonly FieldNode[],
  path: readonly string[],
  fragments: Record<string, FragmentDefinitionNode>,
): SelectedParts {
  let sets = fieldNodes.flatMap((node) => (node.selectionSet ? [node.selectionSet] : []));
  for (const name of path) {
    sets = sets.flatMap((set) =>
      fieldsOf(set, fragments).flatMap((field) =>
        field.name.value === name && field.selectionSet ? [field.selectionSet] : [],
      ),
    );
  }
  const parts = {
    content: false,
    metadata: false,
    targets: false,
    links: false,
    provenance: false,
    backlinks: false,
  };
  for (const field of sets.flatMap((set) => fieldsOf(set, fragments))) {
    const name = field.name.value;
    if (!(name in MEMORY_FIELD_PARTS)) throw new Error(`the record loader does not know Memory.${name}`);
    const part = MEMORY_FIELD_PARTS[name];
    if (part) parts[part] = true;
  }
  return parts;
}

/** The fields of a selection set with its fragments spread (type conditions are the record's own type here). */
function fieldsOf(
  set: SelectionSetNode,
  fragments: Record<string, FragmentDefinitionNode>,
  seen = new Set<string>(),
): FieldNode[] {
  return set.selections.flatMap((selection): FieldNode[] => {
    if (selection.kind === Kind.FIELD) return [selection];
    if (selection.kind === Kind.INLINE_FRAGMENT) return fieldsOf(selection.selectionSet, fragments, seen);
    const name = selection.name.value;
    const fragment = fragments[name];
    // Validation refuses unknown and cyclic fragments; `seen` only keeps this walk finite regardless.
    if (!fragment || seen.has(name)) return [];
    seen.add(name);
    return fieldsOf(fragment.selectionSet, fragments, seen);
  });
}

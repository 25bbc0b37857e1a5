// G1: queries and mutations run on graphql-js's own `execute`, whose answers keep the selection set's
// key order (CollectFields). The executor graphql-yoga ships (@graphql-tools/executor) inserts a key
// when its field settles, so fields answered at once came before those that read the database, and
// a document's first (uncompiled) answer differed from its compiled ones.
import { execute } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/** Before compiledQueries, which falls back to the executor this sets (its reference executor). */
export const referenceExecutor: Plugin = {
  onExecute: ({ setExecuteFn }) => setExecuteFn(execute),
};

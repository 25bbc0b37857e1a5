// G1: queries a process sees again are compiled (graphql-jit) into one function per
// document — no per-field executor work, which was most of a browse page's Node CPU. Variables are
// checked by graphql-js first. S9: a document is executed once — a compiled run's answer stands,
// errors included, when each error was thrown by a resolver: the service's masking
// (src/schema/errors.ts) rebuilds such an error from what was thrown and its path, which graphql-jit
// reports as graphql-js does, and the partial data is the same. An error the executor made itself
// (a null for a non-null field, a scalar that cannot serialise) is reported differently by the two,
// so that answer comes from the reference executor — once: the document is not compiled again.
// Mutations and subscriptions never compile.
import {
  getOperationAST,
  getVariableValues,
  GraphQLError,
  Kind,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import type { Plugin } from 'graphql-yoga';
import type { Metrics } from '../metrics.js';
import type { GraphQLContext } from '../schema/context.js';

export interface CompiledQueriesOptions {
  /**
   * The execution of a document that compiles it (default 2: a one-off document never pays for
   * compiling; the tests use 1, so every query they send runs compiled).
   */
  compileOnRun?: number;
  /**
   * Documents selecting more fields than this (fragments expanded) are never compiled: compiling
   * grows with the selection (here ≈ 6 ms for the Memories tab's ≈ 50 fields, ≈ 14 ms for 190,
   * 20–145 ms for 500 depending on load), and a caller must not be able to stall the event loop
   * with it (S3). Default 200.
   */
  maxFields?: number;
  /**
   * At most this many fields (summed over the compiled documents) stay compiled; the least recently
   * used are dropped beyond it (≈ 1.2 KiB of heap per compiled field: the default ≈ 24 MiB). Compiled
   * documents otherwise live as long as Yoga's parser cache keeps them. Default 20,000.
   */
  maxCompiledFields?: number;
}

interface Entry {
  runs: number;
  /** Undefined until compiled (or after being dropped); null when it is never to be compiled. */
  compiled?: CompiledQuery | null;
  fields: number;
}

export function compiledQueries(metrics: Metrics, options: CompiledQueriesOptions = {}): Plugin {
  const cache = new CompiledCache(options, () => metrics.queryCompilations.inc());
  const answeredBy = (executor: 'compiled' | 'reference') => metrics.queryExecutors.inc({ executor });
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      const operation = getOperationAST(args.document, args.operationName);
      if (operation?.operation !== 'query') return;
      // Anonymous requests (a small introspection) are never compiled: only callers can fill the cache.
      const withCaller = (args.contextValue as Partial<GraphQLContext>).caller != null;
      const compiled = withCaller ? cache.compiledFor(args, operation) : null;
      const reference = (execution: ExecutionArgs) => {
        answeredBy('reference');
        return (executeFn as (args: ExecutionArgs) => ExecutionResult | Promise<ExecutionResult>)(execution);
      };
      if (!compiled) return setExecuteFn(reference);
      setExecuteFn(async (execution: ExecutionArgs) => {
        // graphql-js decides whether the variables are acceptable (its words, its codes).
        const variables = getVariableValues(
          execution.schema,
          operation.variableDefinitions ?? [],
          execution.variableValues ?? {},
        );
        if (variables.errors) return reference(execution);
        const result = await compiled.query(
          execution.rootValue,
          execution.contextValue,
          execution.variableValues,
        );
        const errors = result.errors ?? [];
        if (!errors.every(thrownByResolver)) {
          cache.neverCompile(args.document, operation);
          return reference(execution);
        }
        answeredBy('compiled');
        // G1: graphql-js's order of an answer's members.
        return errors.length ? { errors, data: result.data } : result;
      });
    },
  };
}

/** Compiled operations per document (Yoga's parser cache hands out one DocumentNode per query text) and name. */
class CompiledCache {
  private readonly entries = new WeakMap<DocumentNode, Map<string, Entry>>();
  /** Compiled entries, least recently used first. */
  private readonly recent = new Set<Entry>();
  private compiledFields = 0;
  private readonly compileOnRun: number;
  private readonly maxFields: number;
  private readonly maxCompiledFields: number;

  constructor(
    { compileOnRun = 2, maxFields = 200, maxCompiledFields = 20_000 }: CompiledQueriesOptions,
    private readonly onCompile: () => void,
  ) {
    this.compileOnRun = compileOnRun;
    this.maxFields = maxFields;
    this.maxCompiledFields = maxCompiledFields;
  }

  compiledFor(args: ExecutionArgs, operation: OperationDefinitionNode): CompiledQuery | null {
    let byName = this.entries.get(args.document);
    if (!byName) this.entries.set(args.document, (byName = new Map()));
    const name = operation.name?.value ?? '';
    let entry = byName.get(name);
    if (!entry) byName.set(name, (entry = { runs: 0, fields: 0 }));
    if (entry.compiled) {
      this.recent.delete(entry);
      this.recent.add(entry);
      return entry.compiled;
    }
    if (entry.compiled === null || ++entry.runs < this.compileOnRun) return null;
    entry.fields = fieldCount(args.document, operation.selectionSet, this.maxFields);
    // graphql-jit writes a variable's default value into its code as JSON: a DateTime default would
    // reach the resolver as a string, where graphql-js gives a Date. Such operations stay uncompiled.
    const defaults = operation.variableDefinitions?.some((variable) => variable.defaultValue) ?? false;
    if (entry.fields > this.maxFields || defaults) return (entry.compiled = null);
    const compiled = compileQuery(args.schema, args.document, args.operationName ?? undefined, {
      // An error graphql-jit makes itself is discarded (the reference executor answers): no stack is read.
      disablingCapturingStackErrors: true,
    });
    if (!isCompiledQuery(compiled)) return (entry.compiled = null);
    this.onCompile();
    entry.compiled = compiled;
    this.recent.add(entry);
    this.compiledFields += entry.fields;
    for (const oldest of this.recent) {
      if (this.compiledFields <= this.maxCompiledFields) break;
      this.drop(oldest);
    }
    return compiled;
  }

  /** S9: this operation is answered by the reference executor from now on. */
  neverCompile(document: DocumentNode, operation: OperationDefinitionNode): void {
    const entry = this.entries.get(document)?.get(operation.name?.value ?? '');
    if (!entry) return;
    if (entry.compiled) this.drop(entry);
    entry.compiled = null;
  }

  /** Forgets a compiled entry (it compiles again if it is run enough again). */
  private drop(entry: Entry): void {
    this.recent.delete(entry);
    this.compiledFields -= entry.fields;
    entry.compiled = undefined;
    entry.runs = 0;
  }
}

/** An error a resolver threw (typed or a fault), not one the executor made: both report it alike. */
function thrownByResolver(error: GraphQLError): boolean {
  return error.originalError !== undefined && !(error.originalError instanceof GraphQLError);
}

/** The fields `set` selects (and its fragment spreads), fragments expanded, counted up to just past `limit`. */
function fieldCount(document: DocumentNode, set: SelectionSetNode, limit: number): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions)
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  let count = 0;
  const visit = (selections: SelectionSetNode): void => {
    for (const selection of selections.selections) {
      if (count > limit) return;
      if (selection.kind === Kind.FIELD) {
        count++;
        if (selection.selectionSet) visit(selection.selectionSet);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) visit(selection.selectionSet);
      else {
        // Each spread counts too, so even a fragment cycle (validation refuses them) ends at the limit.
        count++;
        const fragment = fragments.get(selection.name.value);
        if (fragment) visit(fragment.selectionSet);
      }
    }
  };
  visit(set);
  return count;
}

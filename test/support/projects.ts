// Which test files can the run's database kind change? vitest.config.ts puts those in project `db`
// (run on PGlite and again on PostgreSQL) and the rest in `once` (run on PGlite only). The answer is
// read from the source, not kept as a list, so a new file lands in the right project by itself.
//
// The kind enters the tests in one way: TEST_DATABASE_URL (test/support/env.ts's `testDatabaseUrl`),
// and the PostgreSQL template global-setup provides only then (`postgresTemplate`). A file depends on
// the kind when it names either, or uses — through any chain of test/ modules — a helper that does:
// startHarness → createTestDatabase → testDatabaseUrl, startMcpService → testDatabaseUrl, …
// Helpers are followed by declaration, not by module: processes.ts imports `withDatabaseName` from
// env.ts, and that does not make `startServiceProcess` depend on the kind.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** Names (identifiers or string literals) through which a file learns the run's database kind. */
export const KIND_MARKERS: readonly string[] = ['TEST_DATABASE_URL', 'postgresTemplate'];

/**
 * Declarations that read a marker without depending on the kind, by repo-relative file. Only ever
 * add one with its reason; a renamed entry stops matching and the file falls back into `db` (the
 * safe side).
 */
export const FIXED_KIND: Readonly<Record<string, readonly string[]>> = {
  // Tests of several instances always use PostgreSQL, in the PGlite run too; TEST_DATABASE_URL only
  // says which PostgreSQL server.
  'test/support/processes.ts': ['sharedPostgresUrl'],
  // The list above names the markers; it reads none.
  'test/support/projects.ts': ['KIND_MARKERS'],
};

export interface TestProjects {
  /** Repo-relative paths (with `/`) of test files whose outcome may depend on the database kind. */
  db: string[];
  /** Those that open no database of the run's kind (none, or always the same one). */
  once: string[];
}

/** What a file imports from another test/ module: local name → that module's export (`*`: all of it). */
interface Binding {
  file: string;
  name: string;
}

interface Unit {
  /** Identifiers used (a superset of the names it refers to: shadowing only errs towards `db`). */
  uses: Set<string>;
  marked: boolean;
}

interface ModuleFacts {
  imports: Map<string, Binding>;
  /** Top-level declarations by name. */
  declarations: Map<string, Unit>;
  /** Exported name → local declaration name, or a binding re-exported from another module. */
  exports: Map<string, string | Binding>;
  /** Modules re-exported whole (`export * from`). */
  reexportAll: string[];
  /** Every top-level statement that declares nothing (hooks, calls): they run when the file is imported. */
  body: Unit;
}

/** Both projects, over every `test/**\/*.test.ts` (vitest.config.ts's include) under `root`. */
export function classifyTestFiles(root: string): TestProjects {
  const files = (readdirSync(path.join(root, 'test'), { recursive: true }) as string[])
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => `test/${name.split(path.sep).join('/')}`)
    .sort();
  return classify(files, (file) => readFileSync(path.join(root, file), 'utf8'));
}

/** Classifies `testFiles` (repo-relative); `source` reads any repo-relative file (tests pass fakes). */
export function classify(testFiles: string[], source: (file: string) => string): TestProjects {
  const graph = new ModuleGraph(source);
  const projects: TestProjects = { db: [], once: [] };
  for (const file of testFiles) (graph.dependsOnKind(file) ? projects.db : projects.once).push(file);
  return projects;
}

const unitId = (kind: 'body' | 'decl' | 'export', file: string, name: string) => `${kind}\n${file}\n${name}`;

/**
 * Reachability over units: a module's top-level statements (`body`), its declarations (`decl`) and
 * what it exports (`export`, `*` for all of it). A unit depends on the kind when a marked unit is
 * reachable from it.
 */
class ModuleGraph {
  private facts = new Map<string, ModuleFacts | null>();
  private verdicts = new Map<string, boolean>();

  constructor(private readonly source: (file: string) => string) {}

  /** Whether running `file` (a test file) or importing all of it can depend on the kind. */
  dependsOnKind(file: string): boolean {
    return this.reaches(unitId('export', file, '*'));
  }

  private reaches(start: string): boolean {
    const known = this.verdicts.get(start);
    if (known !== undefined) return known;
    const seen = new Set([start]);
    const stack = [start];
    while (stack.length > 0) {
      const unit = stack.pop()!;
      if (this.verdicts.get(unit) === true || this.marked(unit)) {
        this.verdicts.set(start, true);
        return true;
      }
      if (this.verdicts.get(unit) === false) continue;
      for (const next of this.next(unit)) {
        if (seen.has(next)) continue;
        seen.add(next);
        stack.push(next);
      }
    }
    // Nothing marked is reachable from any unit seen, so none of them depends on the kind.
    for (const unit of seen) this.verdicts.set(unit, false);
    return false;
  }

  private marked(unit: string): boolean {
    const [kind, file, name] = unit.split('\n') as [string, string, string];
    const facts = this.factsOf(file);
    if (kind === 'body') return facts?.body.marked ?? false;
    if (kind === 'decl') return facts?.declarations.get(name)?.marked ?? false;
    return false;
  }

  private next(unit: string): string[] {
    const [kind, file, name] = unit.split('\n') as [string, string, string];
    const facts = this.factsOf(file);
    if (!facts) return [];
    if (kind === 'body') return this.usesOf(file, facts, facts.body);
    if (kind === 'decl') {
      const declaration = facts.declarations.get(name);
      return declaration ? this.usesOf(file, facts, declaration) : [];
    }
    // Importing a module runs its top-level statements, whatever name is taken from it.
    const next = [unitId('body', file, '-')];
    const targets = name === '*' ? [...facts.exports.values()] : [facts.exports.get(name)];
    if (name === '*')
      for (const declared of facts.declarations.keys()) next.push(unitId('decl', file, declared));
    for (const target of targets) {
      // `export { x }` of a name imported here is a re-export too.
      const imported = typeof target === 'string' ? facts.imports.get(target) : target;
      if (imported) next.push(unitId('export', imported.file, imported.name));
      else if (target) next.push(unitId('decl', file, target as string));
    }
    for (const all of facts.reexportAll) next.push(unitId('export', all, name));
    return next;
  }

  private usesOf(file: string, facts: ModuleFacts, unit: Unit): string[] {
    const next: string[] = [];
    for (const used of unit.uses) {
      const binding = facts.imports.get(used);
      if (binding) next.push(unitId('export', binding.file, binding.name));
      else if (facts.declarations.has(used)) next.push(unitId('decl', file, used));
    }
    return next;
  }

  private factsOf(file: string): ModuleFacts | null {
    if (!this.facts.has(file)) this.facts.set(file, this.read(file));
    return this.facts.get(file)!;
  }

  private read(file: string): ModuleFacts | null {
    let text: string;
    try {
      text = this.source(file);
    } catch {
      return null; // not a test/ module (a package, src/ or a missing file): see the src guard in its test
    }
    return moduleFacts(file, ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true));
  }
}

/** A relative specifier inside test/, as a repo-relative `.ts` path; anything else is null. */
function resolveSpecifier(from: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  if (!resolved.startsWith('test/')) return null;
  return resolved.replace(/\.(js|mjs|ts)$/, '') + '.ts';
}

function moduleFacts(file: string, sourceFile: ts.SourceFile): ModuleFacts {
  const fixed = new Set(FIXED_KIND[file] ?? []);
  const facts: ModuleFacts = {
    imports: new Map(),
    declarations: new Map(),
    exports: new Map(),
    reexportAll: [],
    body: { uses: new Set(), marked: false },
  };
  const declare = (name: string, node: ts.Node, exported: boolean | 'default') => {
    const unit = scan(node, file, facts);
    if (fixed.has(name)) unit.marked = false;
    facts.declarations.set(name, unit);
    if (exported) facts.exports.set(exported === 'default' ? 'default' : name, name);
  };
  for (const statement of sourceFile.statements) {
    const modifiers = ts.canHaveModifiers(statement) ? (ts.getModifiers(statement) ?? []) : [];
    const has = (kind: ts.SyntaxKind) => modifiers.some((modifier) => modifier.kind === kind);
    const exported =
      has(ts.SyntaxKind.ExportKeyword) && (has(ts.SyntaxKind.DefaultKeyword) ? 'default' : true);
    if (ts.isImportDeclaration(statement)) {
      readImport(file, statement, facts);
    } else if (ts.isExportDeclaration(statement)) {
      readExport(file, statement, facts);
    } else if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        const names = bindingNames(declaration.name);
        for (const name of names) declare(name, declaration, exported);
      }
    } else if (
      (ts.isFunctionDeclaration(statement) ||
        ts.isClassDeclaration(statement) ||
        ts.isInterfaceDeclaration(statement) ||
        ts.isTypeAliasDeclaration(statement) ||
        ts.isEnumDeclaration(statement)) &&
      statement.name
    ) {
      declare(statement.name.text, statement, exported);
    } else if (ts.isExportAssignment(statement)) {
      declare('default', statement.expression, true);
    } else {
      const unit = scan(statement, file, facts);
      for (const used of unit.uses) facts.body.uses.add(used);
      facts.body.marked ||= unit.marked;
    }
  }
  return facts;
}

function readImport(file: string, statement: ts.ImportDeclaration, facts: ModuleFacts): void {
  if (!ts.isStringLiteral(statement.moduleSpecifier)) return;
  const target = resolveSpecifier(file, statement.moduleSpecifier.text);
  if (!target) return;
  const clause = statement.importClause;
  // `import './x.js'`: its top-level statements run here.
  if (!clause) return void facts.body.uses.add(sideEffectName(target, facts));
  if (clause.isTypeOnly) return; // erased: nothing of it runs
  if (clause.name) facts.imports.set(clause.name.text, { file: target, name: 'default' });
  const named = clause.namedBindings;
  if (named && ts.isNamespaceImport(named)) facts.imports.set(named.name.text, { file: target, name: '*' });
  if (named && ts.isNamedImports(named)) {
    for (const element of named.elements) {
      if (element.isTypeOnly) continue;
      facts.imports.set(element.name.text, {
        file: target,
        name: (element.propertyName ?? element.name).text,
      });
    }
  }
}

function readExport(file: string, statement: ts.ExportDeclaration, facts: ModuleFacts): void {
  if (statement.isTypeOnly) return;
  const from =
    statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier)
      ? resolveSpecifier(file, statement.moduleSpecifier.text)
      : null;
  const clause = statement.exportClause;
  if (!clause) {
    if (from) facts.reexportAll.push(from);
    return;
  }
  if (ts.isNamespaceExport(clause)) {
    if (from) facts.exports.set(clause.name.text, { file: from, name: '*' });
    return;
  }
  for (const element of clause.elements) {
    const local = (element.propertyName ?? element.name).text;
    if (element.isTypeOnly) continue;
    if (from) facts.exports.set(element.name.text, { file: from, name: local });
    else if (statement.moduleSpecifier === undefined) facts.exports.set(element.name.text, local);
  }
}

/** A pseudo import standing for "everything `target` does and exports" (side-effect and dynamic imports). */
function sideEffectName(target: string, facts: ModuleFacts): string {
  const name = `import(${target})`;
  facts.imports.set(name, { file: target, name: '*' });
  return name;
}

function bindingNames(name: ts.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((element) =>
    ts.isOmittedExpression(element) ? [] : bindingNames(element.name),
  );
}

/** Identifiers a subtree uses, whether it names a marker, and the test/ modules it imports dynamically. */
function scan(root: ts.Node, file: string, facts: ModuleFacts): Unit {
  const unit: Unit = { uses: new Set(), marked: false };
  const visit = (node: ts.Node) => {
    if (ts.isIdentifier(node) || ts.isStringLiteralLike(node)) {
      if (KIND_MARKERS.includes(node.text)) unit.marked = true;
      if (ts.isIdentifier(node)) unit.uses.add(node.text);
    }
    if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      const target = resolveSpecifier(file, node.arguments[0].text);
      if (target) unit.uses.add(sideEffectName(target, facts));
    }
    ts.forEachChild(node, visit);
  };
  visit(root);
  return unit;
}

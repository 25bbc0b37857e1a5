// Where the service's code can give a statement a name, read from src/ with the TypeScript parser:
// a `.query(text, params, name)` call (three arguments), a `.query({ name, … })` call, and every call
// of loadRecords or statementName (which name a statement for their callers). Each site is
// `<file>#<top-level declaration>`, so a new named statement shows up as a new site.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const NAMING_FUNCTIONS = new Set(['loadRecords', 'statementName']);

function namesAStatement(call: ts.CallExpression): boolean {
  const callee = call.expression;
  if (ts.isIdentifier(callee)) return NAMING_FUNCTIONS.has(callee.text);
  if (!ts.isPropertyAccessExpression(callee) || callee.name.text !== 'query') return false;
  const [first] = call.arguments;
  const configWithName =
    first !== undefined &&
    ts.isObjectLiteralExpression(first) &&
    first.properties.some((p) => p.name !== undefined && ts.isIdentifier(p.name) && p.name.text === 'name');
  return call.arguments.length >= 3 || configWithName;
}

/** The name of the top-level statement `node` is in (a function, a class, a variable). */
function topLevelName(node: ts.Node): string {
  let top = node;
  while (top.parent && !ts.isSourceFile(top.parent)) top = top.parent;
  if ((ts.isFunctionDeclaration(top) || ts.isClassDeclaration(top)) && top.name) return top.name.text;
  if (ts.isVariableStatement(top)) {
    const [declaration] = top.declarationList.declarations;
    if (declaration && ts.isIdentifier(declaration.name)) return declaration.name.text;
  }
  return '(module)';
}

/** Every site in the TypeScript files under `root`/src (generated code left out), sorted. */
export function statementNamingSites(root: string): string[] {
  const sites = new Set<string>();
  const files = readdirSync(path.join(root, 'src'), { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.tsx?$/.test(file) && !file.split(path.sep).includes('generated'))
    .map((file) => path.join('src', file));
  for (const file of files) {
    const source = ts.createSourceFile(
      file,
      readFileSync(path.join(root, file), 'utf8'),
      ts.ScriptTarget.Latest,
      true,
    );
    const visit = (node: ts.Node) => {
      if (ts.isCallExpression(node) && namesAStatement(node))
        sites.add(`${file.split(path.sep).join('/')}#${topLevelName(node)}`);
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return [...sites].sort();
}

import { readFileSync } from 'node:fs';
import { buildSchema } from 'graphql';
import tseslint from 'typescript-eslint';

/**
 * The server's layers, lowest first: a module may import from its own layer and those below, never
 * from a higher one (README "Architecture"). Folders and top-level files of `src/` (without `.ts`).
 */
const LAYERS = [
  ['domain'],
  ['store', 'records', 'logger', 'metrics'],
  ['service', 'auth', 'live', 'log-policy'],
  ['schema', 'http', 'transport', 'demo', 'mcp'],
  ['server'],
  ['main', 'memory-mcp', 'config', 'data-dir-lock', 'instrument-sync-config'],
];

const FOLDERS = new Set([
  'domain',
  'store',
  'records',
  'service',
  'auth',
  'live',
  'schema',
  'http',
  'transport',
  'demo',
  'mcp',
]);
const filesOf = (name) => (FOLDERS.has(name) ? `src/${name}/**/*.ts` : `src/${name}.ts`);
const escape = (name) => name.replace(/\./g, '\\.');

/** One no-restricted-imports block per layer: relative imports that climb to a higher layer are errors. */
const layerRules = LAYERS.map((layer, rank) => {
  const higher = LAYERS.slice(rank + 1).flat();
  if (higher.length === 0) return null;
  const names = higher.map(escape).join('|');
  return {
    files: layer.map(filesOf),
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `^(\\.\\./|\\./)+(${names})(/|\\.js$)`,
              message: `Layers point down: ${layer.join('/')} may not import from ${higher.join(', ')}.`,
            },
          ],
        },
      ],
    },
  };
}).filter(Boolean);

/** The API's root fields, from the printed schema (schema.graphql, checked against the code by a test). */
const ROOT_FIELDS = (() => {
  const schema = buildSchema(readFileSync(new URL('./schema.graphql', import.meta.url), 'utf8'));
  const roots = [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()];
  return roots.flatMap((type) => (type ? Object.keys(type.getFields()) : []));
})();
const RIGHTS_ON_THE_SCHEMA =
  'Rights are declared on the field (schema/, auth/access-table.ts): src/http names no root field and matches no query text (S6, S14).';
const NAMES = ROOT_FIELDS.join('|');
const QUERY_TEXT = '/^(query|document|source|body)$/';

/**
 * src/http decides nothing by a document's fields: no root field name as a string, no regular
 * expression built at run time, none tested on the query text, no searching the query text.
 */
const rightsOnTheSchema = {
  files: ['src/http/**/*.ts'],
  rules: {
    'no-restricted-syntax': [
      'error',
      ...[
        // A list of field names: two of them side by side in one array.
        `ArrayExpression:has(> Literal[value=/^(${NAMES})$/] ~ Literal[value=/^(${NAMES})$/])`,
        // A document or a pattern naming one: the name followed by its arguments or selection.
        `Literal[value=/\\b(${NAMES})\\b\\s*[({|)]/]`,
        `TemplateElement[value.raw=/\\b(${NAMES})\\b\\s*[({|)]/]`,
        `Literal[regex.pattern=/(^|[^A-Za-z])(${NAMES})([^A-Za-z]|$)/]`,
        "NewExpression[callee.name='RegExp']",
        "CallExpression[callee.name='RegExp']",
        `CallExpression[callee.property.name=/^(test|exec)$/][arguments.0.name=${QUERY_TEXT}]`,
        `CallExpression[callee.property.name=/^(test|exec)$/][arguments.0.property.name=${QUERY_TEXT}]`,
        `CallExpression[callee.property.name=/^(match|matchAll|search|includes|indexOf|replace)$/][callee.object.name=${QUERY_TEXT}]`,
        `CallExpression[callee.property.name=/^(match|matchAll|search|includes|indexOf|replace)$/][callee.object.property.name=${QUERY_TEXT}]`,
      ].map((selector) => ({ selector, message: RIGHTS_ON_THE_SCHEMA })),
    ],
  },
};

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'src/store/generated/',
      'dist/',
      'build/',
      'build-tests-*/',
      'coverage/',
      'test-output/',
    ],
  },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: 'Read configuration once in src/main.ts (src/config.ts).',
        },
      ],
    },
  },
  ...layerRules,
  rightsOnTheSchema,
  // Short units: a file fits a reading, a function a screen. A warning, not a gate: a module is cut
  // where its concept ends, never to fit the number (SQL text and Pothos field maps run long).
  {
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    ignores: ['src/store/generated/**'],
    rules: {
      'max-lines': ['warn', { max: 300, skipBlankLines: false, skipComments: false }],
      'max-lines-per-function': [
        'warn',
        { max: 80, skipBlankLines: false, skipComments: false, IIFEs: true },
      ],
    },
  },
  {
    files: ['src/config.ts', 'test/**', 'bench/**', 'scripts/**', 'vitest.config.ts'],
    rules: { 'no-restricted-properties': 'off' },
  },
  // Tests and benchmarks read untyped GraphQL JSON responses.
  { files: ['test/**', 'bench/**'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
);

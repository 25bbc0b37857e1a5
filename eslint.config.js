import tseslint from 'typescript-eslint';

/**
 * The server's layers, lowest first: a module may import from its own layer and those below, never
 * from a higher one (README "Architecture"). Folders and top-level files of `src/` (without `.ts`).
 */
const LAYERS = [
  ['domain'],
  ['store', 'logger', 'metrics'],
  ['service', 'auth', 'live', 'log-policy'],
  ['schema', 'http', 'transport', 'demo', 'mcp'],
  ['server'],
  ['main', 'memory-mcp', 'config', 'data-dir-lock', 'instrument-sync-config'],
];

const FOLDERS = new Set([
  'domain',
  'store',
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

export default tseslint.config(
  { ignores: ['node_modules/', 'src/store/generated/', 'dist/', 'build/', 'coverage/', 'test-output/'] },
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
  // Short units: a file fits a reading, a function a screen (SQL text and Pothos field maps are
  // exempted where they stand, with a comment saying so).
  {
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    ignores: ['src/store/generated/**'],
    rules: {
      'max-lines': ['error', { max: 300, skipBlankLines: false, skipComments: false }],
      'max-lines-per-function': [
        'error',
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

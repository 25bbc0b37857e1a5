import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'src/store/generated/', 'dist/', 'coverage/', 'test-output/'] },
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
  {
    files: ['src/config.ts', 'test/**', 'bench/**', 'scripts/**', 'vitest.config.ts'],
    rules: { 'no-restricted-properties': 'off' },
  },
  // Tests and benchmarks read untyped GraphQL JSON responses.
  { files: ['test/**', 'bench/**'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
);

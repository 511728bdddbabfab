import tseslint from 'typescript-eslint'

// The lint .ci/run makes of every TypeScript file (docs/architecture.md, "Checks of the code"): rules that read
// the types (a promise nobody awaits, a promise where a callback's answer is ignored), no `any` where a type
// exists, and type-only imports written as such (erased at run time, so `mas` loads no module for a type).
export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'vendor/', 'page/'] },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.base],
    languageOptions: {
      parserOptions: { project: ['./tsconfig.json', './tsconfig.tests.json'], tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    // a migration is written against the schema as it was when it ran, not today's table types: Kysely<any>,
    // as kysely's own migrations are
    files: ['server/db/migrations/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Not yet: the API client's answers default to `any` until it is typed by path from the server's declarations,
    // and the tests and benchmarks read those answers by the shape they assert (docs/architecture.md, "Checks of
    // the code", says what is left)
    files: ['src/api.ts', 'test/**', 'bench/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
)

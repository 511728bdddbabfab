import tseslint from 'typescript-eslint'

// The lint .ci/run makes of every TypeScript file (docs/architecture.md, "Checks of the code"): rules that read
// the types (a promise nobody awaits, a promise where a callback's answer is ignored), no `any` where a type
// exists (none at all in the command line), and type-only imports written as such (erased at run time, so `mas`
// loads no module for a type).
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
    // the command line reads every answer through a type (the API client's are typed by path from the server's
    // declarations, src/apiPaths.ts): no value of type `any` either, such as JSON.parse's, used as if it had one
    files: ['src/**', 'commands/**'],
    rules: {
      '@typescript-eslint/no-unsafe-argument': 'error',
      '@typescript-eslint/no-unsafe-assignment': 'error',
      '@typescript-eslint/no-unsafe-call': 'error',
      '@typescript-eslint/no-unsafe-member-access': 'error',
      '@typescript-eslint/no-unsafe-return': 'error',
    },
  },
  {
    // the tests and benchmarks read the server's answers by the shape they assert (docs/architecture.md, "Checks of
    // the code")
    files: ['test/**', 'bench/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
)

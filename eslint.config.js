import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

/** Dependencies point one way: services -> domain -> platform -> runtime. */
const forbid = (packages) => ({
  'no-restricted-imports': [
    'error',
    {
      patterns: packages.map((name) => ({
        group: [`@shop/${name}`, `@shop/${name}/*`, `**/services/${name}/**`],
        message: `Dependencies point one way (services -> domain -> platform -> runtime): this package must not import @shop/${name}.`,
      })),
    },
  ],
});

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', '**/generated/**', '.data/**'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    languageOptions: { globals: globals.node },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  { files: ['services/runtime/**'], rules: forbid(['platform', 'domain', 'api', 'worker', 'consumer']) },
  { files: ['operator/**', 'services/storefront-example/**'], rules: forbid(['platform', 'domain', 'api', 'worker', 'consumer']) },
  { files: ['services/platform/**'], rules: forbid(['domain', 'api', 'worker', 'consumer']) },
  { files: ['services/domain/**'], rules: forbid(['api', 'worker', 'consumer']) },
  { files: ['services/api/**'], rules: forbid(['worker', 'consumer']) },
  { files: ['services/worker/**'], rules: forbid(['api', 'consumer']) },
  { files: ['services/consumer/**'], rules: forbid(['api', 'worker']) },
);

import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import { readFileSync } from 'node:fs';

/** The domain's modules and the modules each may import (services/domain/modules.json; test/architecture.test.ts checks it is acyclic). */
const DOMAIN_MODULES = JSON.parse(readFileSync(new URL('./services/domain/modules.json', import.meta.url), 'utf8'));

/** Redis is the cache's business: what needs it is a Cache operation, implemented in services/platform/src/cache/. */
const REDIS_CLIENT = {
  name: 'ioredis',
  message: 'Only the Redis cache adapter (services/platform/src/cache/redis/) uses ioredis: add a Cache operation instead.',
};

/** Outside the domain, a module is reached through its entry, the package subpath `@shop/domain/<module>`. */
const DOMAIN_INTERNALS = {
  regex: '(^|/)domain/src/',
  message: "Import a domain module's entry (@shop/domain/<module>), never a file inside it.",
};

/** Inside the domain, a module imports another's entry (../<module>/index.ts), and only along services/domain/modules.json. */
const domainModule = (name) => ({
  regex: `^(@shop/domain(/|$)|\\.\\./(?!(${DOMAIN_MODULES[name].join('|')})/index\\.ts$))`,
  message: `The ${name} module imports only the entries (../<module>/index.ts) of the modules services/domain/modules.json lists for it.`,
});

/** Dependencies point one way: services -> domain -> platform -> runtime. And ioredis stays in the cache. */
const forbid = (packages, { redis = false, more = [DOMAIN_INTERNALS] } = {}) => ({
  'no-restricted-imports': [
    'error',
    {
      paths: redis ? [] : [REDIS_CLIENT],
      patterns: [
        ...packages.map((name) => ({
          group: [`@shop/${name}`, `@shop/${name}/*`, `**/services/${name}/**`],
          message: `Dependencies point one way (services -> domain -> platform -> runtime): this package must not import @shop/${name}.`,
        })),
        ...more,
      ],
    },
  ],
});

/** The domain owns every read and write: the api parses, calls one domain function and shapes the answer. */
const NO_DATA_ACCESS = {
  'no-restricted-syntax': [
    'error',
    {
      selector: "CallExpression[callee.object.type='MemberExpression'][callee.object.object.name=/^(prisma|tx|db)$/]",
      message: 'Queries belong to @shop/domain: call a domain function from the api instead of the Prisma client.',
    },
    {
      selector: 'TaggedTemplateExpression[tag.property.name=/^[$](queryRaw|executeRaw)/]',
      message: 'SQL belongs to @shop/domain: call a domain function instead.',
    },
    {
      selector: "CallExpression[callee.property.name='query'][callee.object.name=/^(sql|pool)$/]",
      message: 'SQL belongs to @shop/domain: call a domain function instead.',
    },
  ],
};

/**
 * tools/ holds development and test tools (the test payment gateway): the production images do not carry
 * it, so no program they run may import it. Its own rule, so it adds to each package's no-restricted-imports.
 */
const NO_TOOLS = {
  '@typescript-eslint/no-restricted-imports': [
    'error',
    {
      patterns: [
        {
          group: ['@shop/test-gateway', '@shop/test-gateway/*', '**/tools/**'],
          message: 'tools/ is for development and tests, and not in the production images: a service or extension must not import it.',
        },
      ],
    },
  ],
};

/**
 * A package's code reaches another package through its name and `exports`, never by a relative path:
 * the compiler (tsc -b) refuses a package that is not referenced, but lets a relative path into a
 * referenced one's files through. Tests may reach internals, and are not packages' code.
 */
const PACKAGE_SOURCES = {
  files: ['services/*/src/**', 'operator/src/**', 'cdk8s/src/**', 'extensions/*/src/**', 'tools/*/src/**'],
  // The Shop resource's schema is the repository's (schemas/crd/): the operator's CRD is generated from it too.
  ignores: ['cdk8s/src/shop-file.ts'],
  plugins: { 'import-x': importX },
  settings: { 'import-x/resolver-next': [createNodeResolver()] },
  rules: { 'import-x/no-relative-packages': 'error' },
};

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', '**/generated/**', '.data/**', '.tsbuild/**'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    languageOptions: { globals: globals.node },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      // A switch over a union names every member, so a member added later fails here rather than falling
      // into a default; a switch over a string or number, which cannot be exhaustive, says its default.
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: false, allowDefaultCaseForExhaustiveSwitch: false, requireDefaultForNonUnion: true },
      ],
    },
  },
  // The test servers' own checks talk to Redis directly.
  { files: ['test/**', 'bench/**', 'extensions/**', 'cdk8s/**'], rules: forbid([], { redis: true }) },
  { files: ['services/runtime/**'], rules: forbid(['platform', 'domain', 'api', 'worker', 'consumer']) },
  { files: ['operator/**', 'services/storefront-example/**'], rules: forbid(['platform', 'domain', 'api', 'worker', 'consumer']) },
  { files: ['services/platform/**'], rules: forbid(['domain', 'api', 'worker', 'consumer']) },
  { files: ['services/platform/src/cache/**'], rules: forbid(['domain', 'api', 'worker', 'consumer'], { redis: true }) },
  { files: ['services/domain/**'], rules: forbid(['api', 'worker', 'consumer'], { more: [] }) },
  ...Object.keys(DOMAIN_MODULES).map((name) => ({
    files: [`services/domain/src/${name}/**`],
    rules: forbid(['api', 'worker', 'consumer'], { more: [domainModule(name)] }),
  })),
  { files: ['services/api/**'], rules: forbid(['worker', 'consumer']) },
  // The demo seed (npm run db:seed) is a command that writes sample rows, not a request path.
  { files: ['services/api/src/**'], ignores: ['services/api/src/seed.ts'], rules: NO_DATA_ACCESS },
  { files: ['services/worker/**'], rules: forbid(['api', 'consumer']) },
  { files: ['services/consumer/**'], rules: forbid(['api', 'worker']) },
  { files: ['services/*/src/**', 'extensions/*/src/**', 'operator/src/**', 'cdk8s/src/**'], rules: NO_TOOLS },
  PACKAGE_SOURCES,
);

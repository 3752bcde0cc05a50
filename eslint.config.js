// Lint: typescript-eslint's recommended rules plus the layering of docs/ARCHITECTURE.md.
import importX, { createNodeResolver } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

/**
 * Layers from the bottom up (docs/ARCHITECTURE.md "Layout"): a folder may import only from folders
 * below it in this list. The rule is generated from the list so the two cannot drift apart.
 */
const layers = [
  'common',
  'config',
  'domain',
  'ports',
  'sql',
  'store',
  'corpus',
  'community',
  'repeater',
  'onebot',
  'milky',
  'ops',
  'workers',
  'console',
  'hub',
  'app',
];

const zones = layers.map((layer, index) => ({
  target: `./src/${layer}`,
  from: [...layers.slice(index + 1).map((above) => `./src/${above}`), './src/main.ts'],
  message: `src/${layer} may only import from layers below it (docs/ARCHITECTURE.md "Layout").`,
}));

/**
 * The store's public surface for the layers above it (docs/ARCHITECTURE.md "Layout"): its
 * repositories and their types. Its schema, migrations and statements are its own; only the
 * composition root uses them (to open the store).
 */
const storePublic = [
  './corpus-store.ts',
  './moderation-store.ts',
  './moderation-types.ts',
  './activity-log.ts',
  './bot-config-store.ts',
  './corpus-browse.ts',
  './database-overview.ts',
  './message-retention.ts',
  './hot-keywords.ts',
  './keywords-page.ts',
  './decision-log.ts',
  './agent-catchphrases-store.ts',
  './agent-tasks-store.ts',
];
/** The layers above the store that work through its repositories only. */
const storeClients = ['corpus', 'community', 'repeater', 'onebot', 'milky', 'ops', 'workers', 'console'];
const storeInternals = storeClients.map((layer) => ({
  target: `./src/${layer}`,
  from: './src/store',
  except: storePublic,
  message: `src/${layer} may use the store's repositories, not its internals (eslint.config.js "storePublic").`,
}));
/**
 * The SQL machinery (src/sql: engines, units of work, statement helpers) belongs to the two
 * owners of tables, the store and the hub, and to the composition root that opens them.
 */
const sqlMachinery = storeClients.map((layer) => ({
  target: `./src/${layer}`,
  from: './src/sql',
  message: `src/${layer} may not use the SQL machinery (src/sql); go through the store's repositories.`,
}));

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      '.test-server*/**',
      '.test-build*/**',
      'node_modules/**',
      'data/**',
      'web/dist/**',
      'openspec/**',
      'docs/guide/.vitepress/{cache,dist}/**',
    ],
  },
  ...tseslint.configs.recommended,
  {
    plugins: { 'import-x': importX },
    // Our imports name the file with its `.ts` suffix, so Node's own resolution finds it.
    // no-cycle parses the imported files too, so it is told they are TypeScript.
    settings: {
      'import-x/resolver-next': [createNodeResolver()],
      'import-x/extensions': ['.ts'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones: [...zones, ...storeInternals, ...sqlMachinery] }],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // Only the composition root and the command line read the process environment.
    files: ['src/**/*.ts'],
    ignores: ['src/app/**', 'src/main.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.name='process'][property.name='env']",
          message: 'Read configuration through src/config (the composition root passes the environment in).',
        },
      ],
    },
  },
);

import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

/*
 * The layering rules that hold today, kept by lint: web ↛ server, agent, client; agent ↛ server, web,
 * client; client ↛ server, agent, web; protocol ↛ server, web, agent, client; server repos ↛ routes,
 * services, http/; server lib/ ↛ the rest of the server; agent drivers ↛ runtime; web features ↛
 * pages, app/. Each rule names its forbidden imports twice: as a workspace package (`@postern/server`) and as the relative
 * path that would reach the same folder (`../../../server/src/...`, `../../apps/server/...`).
 * tests/lint/layering.test.ts proves every rule still fires; tests/lint/web-imports.test.ts keeps the
 * web app's import graph free of circles, which folder rules alone cannot.
 */
const importOf = (folder) => ({
  // `@postern/<app>` and deep imports of it, or a relative path climbing into apps/<app> (src, test).
  regex: `^(@postern/${folder}(/|$)|(\\.\\./)+(apps/${folder}(/|$)|${folder}/((src|test)(/|$)|package\\.json$)))`,
});
const LAYER_PATTERNS = {
  server: { ...importOf('server'), message: 'Layering: only the server imports server code.' },
  web: { ...importOf('web'), message: 'Layering: only the web app imports web code.' },
  agent: { ...importOf('agent'), message: 'Layering: only the agent imports agent code.' },
  client: { ...importOf('client'), message: 'Layering: only the client imports client code.' },
  routesAndServices: {
    regex: '\\.(routes|service)(\\.[cm]?[jt]s)?$',
    message: 'Layering: a repo never imports routes or services; they call the repo.',
  },
  serverHttp: {
    regex: '^(\\.\\./)+http(/|$)',
    message: 'Layering: a repo never imports http/; throw plain errors or return results instead.',
  },
  serverFeatures: {
    // Anything that climbs out of lib/ except to errors.ts: a feature, http/, the store, the context.
    regex: '^\\.\\./(?!errors\\.js$)',
    message: 'Layering: server lib/ holds leaf helpers; it imports nothing but itself and errors.ts.',
  },
  agentRuntime: {
    regex: '^(\\.\\./)+runtime(/|$)',
    message: 'Layering: drivers never import the agent runtime; the runtime calls drivers.',
  },
  webPages: {
    regex: '^((\\.\\./)+|@/)pages(/|$)',
    message: 'Layering: features never import pages; pages compose features.',
  },
  webApp: {
    // app/ holds the router and the route table, which imports every page: a feature importing it
    // closes a circle (table → page → feature → table). Route paths are in lib/route-paths.ts.
    regex: '^((\\.\\./)+|@/)app(/|$)',
    message: 'Layering: features never import app/; the app composes pages and features (paths: lib/route-paths).',
  },
};
/**
 * One flat-config block forbidding `patterns` in `files`. A later block matching the same file
 * replaces the rule's options, so each block lists all the patterns its files need.
 */
const layering = (files, ...patterns) => ({
  files,
  rules: { 'no-restricted-imports': ['error', { patterns: patterns.map((name) => LAYER_PATTERNS[name]) }] },
});

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'data/**', 'test-results/**', '.tools/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.node },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-floating-promises': 'error',
      eqeqeq: ['error', 'always'],
      'no-console': 'error',
    },
  },
  {
    files: ['apps/web/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    languageOptions: { globals: { ...globals.browser } },
    rules: { ...reactHooks.configs.recommended.rules },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // Classic scripts the web app loads before its bundle run in the browser, not in Node.
    files: ['apps/web/public/**/*.js'],
    languageOptions: { sourceType: 'script', globals: { ...globals.browser } },
  },
  {
    files: ['scripts/**', '.ci/**'],
    rules: { 'no-console': 'off' },
  },
  layering(['apps/web/**'], 'server', 'agent', 'client'),
  layering(['apps/web/src/features/**'], 'server', 'agent', 'client', 'webPages', 'webApp'),
  layering(['apps/agent/**'], 'server', 'web', 'client'),
  layering(['apps/agent/src/drivers/**'], 'server', 'web', 'client', 'agentRuntime'),
  // The machine client speaks to the server only through the API and the protocol package.
  layering(['apps/client/**'], 'server', 'agent', 'web'),
  layering(['packages/protocol/**'], 'server', 'web', 'agent', 'client'),
  layering(['apps/server/**/*.repo.ts'], 'routesAndServices', 'serverHttp'),
  layering(['apps/server/src/lib/**'], 'serverFeatures'),
);

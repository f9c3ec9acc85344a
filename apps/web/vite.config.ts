import { defineConfig, defaultClientConditions } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

/**
 * `@/x` means `src/x` (the same mapping as tsconfig's `paths`). A regular expression, so scoped
 * packages such as `@mantine/core` are left alone.
 */
export const SRC_ALIAS = { find: /^@\//, replacement: `${fileURLToPath(new URL('./src', import.meta.url))}/` };

/** Where `npm run dev` forwards API calls: the Postern server's default port on loopback. */
const DEV_API_TARGET = 'http://127.0.0.1:8080';

/** The admin console's own modules (pages and layout); the portal never imports them statically. */
const ADMIN_MODULES = /[\\/]src[\\/](pages[\\/]admin|layouts[\\/]AdminShell)[\\/]/;
const NODE_MODULES = /[\\/]node_modules[\\/]/;
const REACT = /[\\/]node_modules[\\/](react|react-dom|scheduler|react-router)[\\/]/;
const MANTINE = /[\\/]node_modules[\\/](@mantine|@floating-ui)[\\/]/;
/** Two-factor enrolment (users' and admins'): the QR code library and the screens that draw it. */
const ENROLMENT =
  /[\\/](node_modules[\\/]qrcode\.react|src[\\/]features[\\/]two-factor[\\/]components[\\/](EnrolmentSecret|TwoFactorOnboarding))[\\/.]/;
/** The password strength estimator; its word lists are large, so each gets a chunk of its own. */
const ZXCVBN = /[\\/]node_modules[\\/](@zxcvbn-ts[\\/]core|fastest-levenshtein)[\\/]/;
const ZXCVBN_LANGUAGE = /[\\/]node_modules[\\/]@zxcvbn-ts[\\/]language-(common|en|de)[\\/]/;

export default defineConfig({
  plugins: [react()],
  // '@postern/protocol' ships TypeScript source under the "source" condition; no build step needed.
  resolve: { conditions: ['source', ...defaultClientConditions], alias: [SRC_ALIAS] },
  server: {
    // No changeOrigin: the server compares Origin with Host, and both must stay the browser's.
    proxy: { '/api': { target: DEV_API_TARGET } },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    rolldownOptions: {
      output: {
        codeSplitting: {
          // '$initial' = needed by the first page load. Higher priority claims a module first.
          groups: [
            // Libraries change less often than our code, so they are cached apart from it.
            { name: 'react', test: REACT, tags: ['$initial'], priority: 50 },
            { name: 'mantine', test: MANTINE, tags: ['$initial'], priority: 40 },
            { name: 'vendor', test: NODE_MODULES, tags: ['$initial'], priority: 30 },
            // The portal's own code, in one chunk with the entry's imports.
            { name: 'app', tags: ['$initial'], priority: 20 },
            // Fetched only by whoever enrols an authenticator, from the portal or the console.
            { name: 'two-factor-enrolment', test: ENROLMENT, priority: 15 },
            // Fetched when a change-password dialog opens (dynamic imports in password-strength.ts).
            { name: 'zxcvbn', test: ZXCVBN, priority: 15 },
            {
              name: (id) => `zxcvbn-${ZXCVBN_LANGUAGE.exec(id)?.[1] ?? 'language'}`,
              test: ZXCVBN_LANGUAGE,
              priority: 15,
            },
            // The admin console and whatever only it uses: fetched when someone opens /admin.
            { name: 'admin', test: ADMIN_MODULES, priority: 10 },
          ],
        },
      },
    },
  },
});

import { createRequire } from 'node:module';

// Replaced by esbuild's `define` when scripts/bundle.mjs builds the single file, which has no
// package.json beside it.
declare const __POSTERN_CLIENT_VERSION__: string | undefined;

/** The version in apps/client/package.json. */
export const CLIENT_VERSION: string =
  typeof __POSTERN_CLIENT_VERSION__ === 'string' ? __POSTERN_CLIENT_VERSION__ : packageVersion();

/** From source and from tsc's dist/ alike, the package.json is one directory up. */
function packageVersion(): string {
  const packageJson: unknown = createRequire(import.meta.url)('../package.json');
  const version =
    typeof packageJson === 'object' && packageJson !== null && 'version' in packageJson ? packageJson.version : null;
  return typeof version === 'string' ? version : '0.0.0';
}

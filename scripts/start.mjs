// npm start: install what is missing, build what changed, then run the portal in this process.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, ensureDependencies, ensureNodeVersion, ROOT } from './lib.mjs';

ensureNodeVersion();
ensureDependencies();
build({ only: ['protocol', 'server', 'web'] });
// Arguments after `npm start --` go to the server (for example: npm start -- --help).
process.argv = [process.argv[0], 'postern', ...process.argv.slice(2)];
await import(pathToFileURL(path.join(ROOT, 'apps/server/dist/main.js')).href);

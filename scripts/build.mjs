// npm run build [-- --force]: builds the protocol, server, agent, client and web app where sources changed.
import { build, ensureDependencies, ensureNodeVersion } from './lib.mjs';

ensureNodeVersion();
ensureDependencies();
build({ force: process.argv.includes('--force') });

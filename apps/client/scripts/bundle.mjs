// Builds dist/postern-client.mjs: the client and every dependency in one ESM file, which the server
// hands out at /api/agent/postern-client.mjs and the install script puts in /opt/postern-agent.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleNodeProgram } from '../../../scripts/bundle-node-program.mjs';

const CLIENT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// `--outfile FILE` builds elsewhere (the install script's test); the build writes dist/.
const outfileFlag = process.argv.indexOf('--outfile');
const { version } = JSON.parse(readFileSync(path.join(CLIENT_DIR, 'package.json'), 'utf8'));

await bundleNodeProgram({
  entry: path.join(CLIENT_DIR, 'src', 'main.ts'),
  outfile:
    outfileFlag === -1
      ? path.join(CLIENT_DIR, 'dist', 'postern-client.mjs')
      : path.resolve(process.argv[outfileFlag + 1]),
  // The bundle has no package.json beside it: the version is written in (src/version.ts).
  define: { __POSTERN_CLIENT_VERSION__: JSON.stringify(version) },
});

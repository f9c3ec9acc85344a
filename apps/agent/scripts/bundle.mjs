// Builds dist/postern-agent.mjs: the agent and every dependency in one ESM file, which the server
// hands out at /api/agent/postern-agent.mjs and the install script puts in /opt/postern-agent.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleNodeProgram } from '../../../scripts/bundle-node-program.mjs';

const AGENT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

await bundleNodeProgram({
  entry: path.join(AGENT_DIR, 'src', 'main.ts'),
  outfile: path.join(AGENT_DIR, 'dist', 'postern-agent.mjs'),
  // ws loads these native speed-ups if present and works without them; never bundle native code.
  external: ['bufferutil', 'utf-8-validate'],
});

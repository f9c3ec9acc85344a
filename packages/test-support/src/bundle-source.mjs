// node bundle-source.mjs <entry.ts>: bundles a TypeScript entry point for the tests (why: see
// sourceBundle in process.ts) and prints the bundle's path. A script of its own because esbuild
// runs plugins only in its asynchronous API, and the tests start commands synchronously.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const REPO_ROOT = path.resolve(import.meta.dirname, '../../..');
// Inside the repository's node_modules, so the npm packages a bundle leaves external resolve as they
// do for the source entry (the workspaces' dependencies are all hoisted to the root).
const BUNDLE_DIR = path.join(REPO_ROOT, 'node_modules', '.cache', 'postern-test-bundles');

/** npm packages (bare names other than the workspace's @postern packages) stay external. */
const keepNpmPackagesExternal = {
  name: 'keep-npm-packages-external',
  setup(builder) {
    builder.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('@postern/') || path.isAbsolute(args.path)) return undefined;
      return { path: args.path, external: true };
    });
  },
};

/**
 * Each source file keeps its own `import.meta.url` (and dirname, filename): paths the code derives
 * from its location (the web app, the docs, the agent files, createRequire) stay what they are when
 * the file runs from source, wherever the bundle lies.
 */
const keepImportMetaOfEachFile = {
  name: 'keep-import-meta-of-each-file',
  setup(builder) {
    builder.onLoad({ filter: /\.[cm]?tsx?$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const contents = source
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
        .replaceAll('import.meta.dirname', JSON.stringify(path.dirname(args.path)))
        .replaceAll('import.meta.filename', JSON.stringify(args.path));
      return { contents, loader: args.path.endsWith('x') ? 'tsx' : 'ts' };
    });
  },
};

const entry = path.resolve(process.argv[2]);
const result = await build({
  entryPoints: [entry],
  bundle: true,
  write: false,
  platform: 'node',
  format: 'esm',
  target: `node${process.versions.node}`,
  // Workspace packages (@postern/protocol) from their TypeScript source, as the tests import them.
  conditions: ['source'],
  plugins: [keepNpmPackagesExternal, keepImportMetaOfEachFile],
  logLevel: 'error',
});
const code = result.outputFiles[0].contents;
// Named after its content: test files bundling the same entry at once write the same file, and the
// rename is atomic, so no process ever starts a half-written bundle.
const hash = createHash('sha256').update(code).digest('hex').slice(0, 16);
const file = path.join(BUNDLE_DIR, `${path.basename(entry).replace(/\.[cm]?tsx?$/, '')}-${hash}.mjs`);
if (existsSync(file)) {
  const now = new Date();
  utimesSync(file, now, now);
} else {
  mkdirSync(BUNDLE_DIR, { recursive: true });
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, code);
  renameSync(partial, file);
}
// Every change of the sources makes a new bundle; the ones no test has used for a day go.
for (const name of readdirSync(BUNDLE_DIR)) {
  const old = path.join(BUNDLE_DIR, name);
  if (Date.now() - statSync(old, { throwIfNoEntry: false })?.mtimeMs > 24 * 60 * 60 * 1000)
    rmSync(old, { force: true });
}
process.stdout.write(file);

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/*
 * The web app's import graph, read with the TypeScript compiler (imports, re-exports, type-only
 * imports and the lazy `import()` of the route table alike), resolved as apps/web/tsconfig.json
 * resolves them (the `@/` alias included). Two rules that folder-by-folder lint cannot state:
 *
 * - No import circle. The layering lint rules forbid one folder importing another; a circle can
 *   also run through folders that may each import the next.
 * - Test support lives in src/test-support/ (see its README.md) and only there: every other file
 *   that is not a test is part of the app, reached from main.tsx; and nothing the app reaches is in
 *   test-support/. A fixture or harness put next to the code it serves fails here whatever its name.
 */
const WEB = path.resolve(import.meta.dirname, '../../apps/web');
const SRC = path.join(WEB, 'src');
const MAIN = path.join(SRC, 'main.tsx');
const TEST_SUPPORT = path.join(SRC, 'test-support');

/** Every .ts and .tsx file under `folder`. */
function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** Each file under src/ and the files under src/ it imports (packages left out). */
function importGraph(): Map<string, string[]> {
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(WEB, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (config === undefined) throw new Error('apps/web/tsconfig.json could not be read');
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const imported = importedFiles
      .map(({ fileName }) => ts.resolveModuleName(fileName, file, config.options, ts.sys).resolvedModule)
      .map((resolved) => resolved?.resolvedFileName)
      .filter((resolved): resolved is string => resolved !== undefined && resolved.startsWith(`${SRC}${path.sep}`));
    graph.set(file, [...new Set(imported)]);
  }
  return graph;
}

/** `file` relative to src/, as a message names it. */
const relative = (file: string) => path.relative(SRC, file);

/** The import circles of `graph`, each as the files along it (first file repeated at the end). */
function circles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const done = new Set<string>();
  const onPath: string[] = [];
  const visit = (file: string) => {
    const at = onPath.indexOf(file);
    if (at >= 0) {
      found.push([...onPath.slice(at), file].map(relative));
      return;
    }
    if (done.has(file)) return;
    onPath.push(file);
    for (const imported of graph.get(file) ?? []) visit(imported);
    onPath.pop();
    done.add(file);
  };
  for (const file of graph.keys()) visit(file);
  return found;
}

/** Whether `file` is a test (`*.test.ts`, `*.test.tsx`, `*.isolated.test.tsx`). */
const isTest = (file: string) => /\.test\.tsx?$/.test(file);

/** Whether `file` is under src/test-support/. */
const isTestSupport = (file: string) => file.startsWith(`${TEST_SUPPORT}${path.sep}`);

/** Every file `entry` reaches through its imports, itself included. */
function reachedFrom(graph: Map<string, string[]>, entry: string): Set<string> {
  const reached = new Set<string>();
  const pending = [entry];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (reached.has(file)) continue;
    reached.add(file);
    pending.push(...(graph.get(file) ?? []));
  }
  return reached;
}

/**
 * Where test support is out of its folder: `outside`, the files that are neither tests, nor in
 * test-support/, nor part of the app (so only tests import them, or nothing does); `inApp`, the
 * test-support files the app reaches from main.tsx.
 */
function misplacedTestSupport(graph: Map<string, string[]>): { outside: string[]; inApp: string[] } {
  const app = reachedFrom(graph, MAIN);
  const files = [...graph.keys()];
  return {
    outside: files.filter((file) => !isTest(file) && !isTestSupport(file) && !app.has(file)).map(relative),
    inApp: files.filter((file) => isTestSupport(file) && app.has(file)).map(relative),
  };
}

const GRAPH = importGraph();

describe('the web app’s import graph', () => {
  it('is read: the route table reaches the pages it loads lazily', () => {
    // Guards the checks below against an empty or unresolved graph, which would pass them all.
    const table = GRAPH.get(path.join(SRC, 'app/routes/route-table.ts')) ?? [];
    expect(table.map(relative)).toContain('pages/admin/Knocs/Page.tsx');
    expect(GRAPH.size).toBeGreaterThan(100);
  });

  it('has no import circle', () => {
    expect(circles(GRAPH)).toEqual([]);
  });

  it('keeps test support in src/test-support/, out of the app', () => {
    // `outside`: move the file into src/test-support/ (or delete it if nothing imports it).
    // `inApp`: the app must not import test support; move what it needs out of test-support/.
    expect(misplacedTestSupport(GRAPH)).toEqual({ outside: [], inApp: [] });
  });

  it('finds test support out of its folder, and the app importing it', () => {
    const file = (name: string) => path.join(SRC, name);
    const graph = new Map([
      [MAIN, [file('features/x/x.ts'), file('features/x/uses-support.ts')]],
      [file('features/x/x.ts'), []],
      [file('features/x/uses-support.ts'), [file('test-support/fixtures.ts')]],
      [file('features/x/x.test.ts'), [file('features/x/x-fixtures.ts'), file('test-support/records/x.ts')]],
      [file('features/x/x-fixtures.ts'), []],
      [file('test-support/fixtures.ts'), []],
      [file('test-support/records/x.ts'), []],
    ]);
    expect(misplacedTestSupport(graph)).toEqual({
      outside: ['features/x/x-fixtures.ts'],
      inApp: ['test-support/fixtures.ts'],
    });
  });

  it('finds a circle where there is one', () => {
    const [a, b, c] = ['a.ts', 'b.ts', 'c.ts'].map((name) => path.join(SRC, name)) as [string, string, string];
    const graph = new Map([
      [a, [b]],
      [b, [c]],
      [c, [a]],
    ]);
    expect(circles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts', 'a.ts']]);
  });
});

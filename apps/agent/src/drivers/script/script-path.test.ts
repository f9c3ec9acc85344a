import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveScript } from './script-path.js';

let root: string;
let scripts: string;

/** Writes an executable script (mode 755 unless told) and returns its path. */
function script(file: string, mode = 0o755): string {
  const target = path.join(root, file);
  mkdirSync(path.dirname(target), { recursive: true });
  writeFileSync(target, '#!/bin/sh\nexit 0\n');
  chmodSync(target, mode);
  return target;
}

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'postern-script-path-')));
  scripts = path.join(root, 'scripts');
  mkdirSync(scripts, { mode: 0o755 });
  chmodSync(scripts, 0o755);
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('resolveScript', () => {
  it('finds a bare name in the scripts directory', async () => {
    const file = script('scripts/open.sh');

    expect(await resolveScript('open.sh', scripts)).toBe(file);
  });

  it('accepts an absolute path inside the scripts directory, and a subdirectory', async () => {
    const file = script('scripts/vendor/open.sh');

    expect(await resolveScript(file, scripts)).toBe(file);
    expect(await resolveScript('vendor/open.sh', scripts)).toBe(file);
  });

  it('follows a symlink that stays inside the directory', async () => {
    const file = script('scripts/real.sh');
    symlinkSync(file, path.join(scripts, 'alias.sh'));

    expect(await resolveScript('alias.sh', scripts)).toBe(file);
  });

  it.each([
    ['an absolute path outside the directory', () => script('elsewhere.sh'), /is outside the scripts directory/],
    ['a path with ..', () => '../elsewhere.sh', /may not contain "\.\."/],
    ['.. hidden in an absolute path', () => `${scripts}/../elsewhere.sh`, /may not contain "\.\."/],
    ['a webhook URL', () => 'https://hooks.example.com/open', /is a URL/],
    ['a program that is not there', () => 'missing.sh', /script missing\.sh does not exist/],
    ['an empty command', () => ' ', /the script command is empty/],
  ])('refuses %s', async (_name, command, problem) => {
    script('elsewhere.sh');

    await expect(resolveScript(command(), scripts)).rejects.toThrow(problem);
  });

  it('refuses a symlink that escapes the directory', async () => {
    const outside = script('elsewhere.sh');
    symlinkSync(outside, path.join(scripts, 'escape.sh'));

    await expect(resolveScript('escape.sh', scripts)).rejects.toThrow(
      `script escape.sh resolves to ${outside}, outside the scripts directory`,
    );
  });

  it('refuses a script directory others can write', async () => {
    script('scripts/open.sh');
    chmodSync(scripts, 0o777);

    await expect(resolveScript('open.sh', scripts)).rejects.toThrow(
      /the scripts directory .* is writable by group or others \(mode 777\)/,
    );
  });

  it('refuses a script its group can write', async () => {
    script('scripts/open.sh', 0o775);

    await expect(resolveScript('open.sh', scripts)).rejects.toThrow(
      'script open.sh is writable by group or others (mode 775)',
    );
  });

  it('refuses a file that is not executable, and a directory', async () => {
    script('scripts/notes.txt', 0o644);
    mkdirSync(path.join(scripts, 'sub'));

    await expect(resolveScript('notes.txt', scripts)).rejects.toThrow('is not executable');
    await expect(resolveScript('sub', scripts)).rejects.toThrow('is not a regular file');
  });
});

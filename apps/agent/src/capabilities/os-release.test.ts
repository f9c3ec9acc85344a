import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseOsRelease, readOsRelease } from './os-release.js';

describe('parseOsRelease', () => {
  it("reads Debian's file, quotes removed", () => {
    const text = [
      'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"',
      'NAME="Debian GNU/Linux"',
      'VERSION_ID="12"',
      'VERSION="12 (bookworm)"',
      'VERSION_CODENAME=bookworm',
      'ID=debian',
    ].join('\n');

    expect(parseOsRelease(text)).toMatchObject({
      NAME: 'Debian GNU/Linux',
      VERSION: '12 (bookworm)',
      VERSION_CODENAME: 'bookworm',
    });
  });

  it.each([
    ['single quotes, literally', "NAME='Red Hat $HOME \\n'", 'Red Hat $HOME \\n'],
    ['escapes inside double quotes', 'NAME="say \\"hi\\" \\\\ \\$x \\`y\\`"', 'say "hi" \\ $x `y`'],
    ['an unquoted value up to a space', 'NAME=Arch # rolling', 'Arch'],
    ['an empty value', 'NAME=', ''],
    ['a # inside an unquoted word', 'NAME=C#OS', 'C#OS'],
  ])('reads %s', (_name, line, expected) => {
    expect(parseOsRelease(line).NAME).toBe(expected);
  });

  it('skips comments, blank lines, junk and unclosed quotes', () => {
    expect(parseOsRelease('# NAME=commented\n\nnot a line\nNAME="unclosed\nID=x')).toEqual({ ID: 'x' });
  });
});

describe('readOsRelease', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'postern-os-release-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads the first file that exists', async () => {
    const second = path.join(dir, 'usr-lib-os-release');
    writeFileSync(second, 'NAME="Ubuntu"\nVERSION="24.04 LTS (Noble Numbat)"\n');

    expect(await readOsRelease([path.join(dir, 'missing'), second])).toEqual({
      NAME: 'Ubuntu',
      VERSION: '24.04 LTS (Noble Numbat)',
    });
  });

  it('falls back to VERSION_ID, and to the name Linux', async () => {
    const file = path.join(dir, 'os-release');
    writeFileSync(file, 'ID=alpine\nVERSION_ID=3.20.1\n');

    expect(await readOsRelease([file])).toEqual({ NAME: 'Linux', VERSION: '3.20.1' });
  });

  it('reports Linux with no version when no file exists', async () => {
    expect(await readOsRelease([path.join(dir, 'missing')])).toEqual({ NAME: 'Linux', VERSION: '' });
  });
});

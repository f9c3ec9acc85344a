import { readdirSync } from 'node:fs';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { runNft } from './nft-command.js';

const leftovers = () => readdirSync(os.tmpdir()).filter((name) => name.startsWith('postern-nft-'));

describe('runNft', () => {
  it('hands the input to a program that opens /dev/stdin (as `nft -f -` does), and leaves no file behind', async () => {
    const before = leftovers();

    const result = await runNft(['sh', '-c', 'cat /dev/stdin; test -S /dev/stdin || echo not-a-socket'], {
      input: '{"nftables":[]}',
    });

    expect(result).toEqual({ code: 0, signal: null, stdout: '{"nftables":[]}not-a-socket\n', stderr: '' });
    expect(leftovers()).toEqual(before);
  });

  it('runs without input like runCommand, with the exit status and stderr', async () => {
    expect(await runNft(['sh', '-c', 'echo oops >&2; exit 3'], {})).toMatchObject({ code: 3, stderr: 'oops\n' });
  });

  it('rejects when the program cannot be started', async () => {
    await expect(runNft(['/nonexistent/nft', '-j', '-f', '-'], { input: '{}' })).rejects.toThrow(/ENOENT/);
  });
});

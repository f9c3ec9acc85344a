import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { NftChannel } from './nft-channel.js';
import type { NftCommand } from './nft-json.js';
import type { NftShellCommand } from './nft-shell.js';

describe('NftChannel', () => {
  it('hands the shell each document as one line of printable ASCII that means the same JSON', async () => {
    const lines: NftShellCommand[] = [];
    const channel = new NftChannel({
      command: ['nft'],
      run: () => Promise.reject(new Error('nothing is spawned')),
      shell: {
        run: (commands) => {
          lines.push(...commands);
          return Promise.resolve(commands.map(() => ({ stderr: '', stdout: null })));
        },
        close: () => Promise.resolve(),
      },
      logger: pino({ level: 'silent' }),
      timeoutMs: 1000,
      now: () => 0,
    });
    // A rule's comment is the only free text a batch carries.
    const command = {
      insert: { rule: { family: 'inet', table: 't', chain: 'input', comment: 'é\n\u007f\u2028😀', expr: [] } },
    } as unknown as NftCommand;

    expect(await channel.batch([command])).toBeNull();

    expect(lines).toHaveLength(1);
    expect(lines[0]?.line).toMatch(/^[\x20-\x7e]+$/);
    expect(JSON.parse(lines[0]?.line ?? '')).toEqual({ nftables: [command] });
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { NftShell, type NftShellAnswer } from './nft-shell.js';

/**
 * A stand-in for `nft -j -i` as nft 1.0.6 answers on pipes (tests/system/drivers-nftables runs the
 * real one): a line that is not JSON fails to parse, its error naming the line on stderr in the
 * shape of the marker's ("Error: syntax error, unexpected newline", the line, a `^` line), written
 * in pieces as a pipe may deliver them. JSON lines: a `list` of set `pid` / `home` / any name prints
 * one stdout line (the process id, HOME, or the name and how many lines it has read); a `list` of
 * set `fail` and any document holding "fail" print nft's error instead; "die" ends the process and
 * "hang" stops it answering.
 */
const FAKE_NFT = String.raw`
const args = process.argv.slice(-2);
if (args.join(' ') !== '-j -i') { process.stderr.write('fake nft: not -j -i\n'); process.exit(2); }
const pause = () => new Promise((resolve) => setTimeout(resolve, 1));
let buffer = '';
let read = 0;
let hung = false;
let work = Promise.resolve();
async function answer(line) {
  read += 1;
  if (hung) return;
  if (!line.startsWith('{')) {
    for (const piece of ['Error: ', 'syntax error, unexpected newline\n' + line, '\n', ' '.repeat(line.length) + '^\n']) {
      process.stderr.write(piece);
      await pause();
    }
    return;
  }
  if (line.includes('"die"')) { process.stderr.write('Error: dying\n'); process.exit(3); }
  if (line.includes('"hang"')) { hung = true; return; }
  const document = JSON.parse(line);
  const name = document.nftables[0]?.list?.set?.name;
  if (line.includes('fail')) {
    process.stderr.write('internal:0:0-0: ');
    await pause();
    process.stderr.write('Error: Could not process rule: No such file or directory\n\n');
    return;
  }
  if (name === undefined) return;
  const value = name === 'pid' ? process.pid : name === 'home' ? process.env.HOME : name + '@' + read;
  const text = JSON.stringify({ nftables: [{ metainfo: {} }, { set: { name, value } }] }) + '\n';
  process.stdout.write(text.slice(0, 10));
  await pause();
  process.stdout.write(text.slice(10));
}
process.stdin.setEncoding('utf8').on('data', (chunk) => {
  buffer += chunk;
  const lines = buffer.split('\n');
  buffer = lines.pop();
  for (const line of lines) work = work.then(() => answer(line));
});
`;

const shells: NftShell[] = [];
afterEach(async () => {
  await Promise.all(shells.splice(0).map((shell) => shell.close()));
});

function fakeShell(options: { timeoutMs?: number; linesPerProcess?: number } = {}): NftShell {
  const shell = new NftShell([process.execPath, '-e', FAKE_NFT, '--'], { timeoutMs: 5000, ...options });
  shells.push(shell);
  return shell;
}

const list = (name: string) => ({ line: JSON.stringify({ nftables: [{ list: { set: { name } } }] }), output: true });
const write = (what = 'ok') => ({ line: JSON.stringify({ nftables: [{ add: { element: { name: what } } }] }) });
/** What a listing answer of the fake holds. */
const value = (answer: NftShellAnswer | undefined): unknown =>
  answer?.stdout === null || answer?.stdout === undefined
    ? null
    : (JSON.parse(answer.stdout) as { nftables: [unknown, { set: { value: unknown } }] }).nftables[1].set.value;

async function pidOf(shell: NftShell): Promise<number> {
  return Number(value((await shell.run([list('pid')]))[0]));
}

describe('NftShell', () => {
  it('answers each command with its own stderr, cut at the markers, without the markers’ errors', async () => {
    const shell = fakeShell();

    const answers = await shell.run([write(), write('fail'), write()]);

    expect(answers).toEqual([
      { stderr: '', stdout: null },
      { stderr: 'internal:0:0-0: Error: Could not process rule: No such file or directory', stdout: null },
      { stderr: '', stdout: null },
    ]);
  });

  it('hands each listing its stdout line, and a failing listing none, so the next one gets its own', async () => {
    const shell = fakeShell();

    const answers = await shell.run([list('first'), list('fail'), write(), list('third')]);

    expect(answers.map(value)).toEqual(['first@1', null, null, 'third@7']);
    expect(answers[1]?.stderr).toContain('No such file or directory');
  });

  it('keeps one process between calls, started with HOME=/nonexistent so nft writes no history', async () => {
    const shell = fakeShell();

    const pid = await pidOf(shell);
    expect(await pidOf(shell)).toBe(pid);
    expect(value((await shell.run([list('home')]))[0])).toBe('/nonexistent');
  });

  it('runs concurrent calls one after another, in the order they were made', async () => {
    const shell = fakeShell();

    const [first, second, third] = await Promise.all([
      shell.run([list('a'), write(), list('b')]),
      shell.run([list('c')]),
      shell.run([write('fail'), list('d')]),
    ]);

    expect(first.map(value)).toEqual(['a@1', null, 'b@5']);
    expect(second.map(value)).toEqual(['c@7']);
    expect(third.map(value)).toEqual([null, 'd@11']);
    expect(third[0]?.stderr).toContain('No such file or directory');
  });

  it('rejects every waiting command when nft dies, with what it said, and starts a new one next time', async () => {
    const shell = fakeShell();
    const before = await pidOf(shell);

    await expect(shell.run([write(), write('die'), list('never')])).rejects.toThrow(
      /^the nft shell ended \(3\)(: Error: dying)?$/,
    );

    const after = await pidOf(shell);
    expect(after).not.toBe(before);
    expect(await shell.run([list('again')])).toHaveLength(1);
  });

  it('kills a shell that does not answer in time, and starts a new one next time', async () => {
    // Long enough for the fake nft (a Node.js process) to start on a busy machine: the first
    // command's deadline covers the start too.
    const shell = fakeShell({ timeoutMs: 2000 });
    const before = await pidOf(shell);

    await expect(shell.run([write('hang')])).rejects.toThrow('nft did not answer within 2000 ms');

    await expect.poll(() => alive(before), { timeout: 5000 }).toBe(false);
    expect(await pidOf(shell)).not.toBe(before);
  });

  it('refuses a command with a newline or another control character, sending nothing', async () => {
    const shell = fakeShell();

    for (const line of ['{"nftables":[]}\nflush ruleset', 'flush ruleset\r', 'a\u0000b', '  ']) {
      await expect(shell.run([write(), { line }])).rejects.toThrow('one non-empty line without control characters');
    }
    expect(value((await shell.run([list('next')]))[0])).toBe('next@1');
  });

  it('replaces its process after linesPerProcess lines (nft keeps every line in memory)', async () => {
    const shell = fakeShell({ linesPerProcess: 4 });

    const first = await pidOf(shell);
    expect(await pidOf(shell)).toBe(first);
    const second = await pidOf(shell);

    expect(second).not.toBe(first);
    await expect.poll(() => alive(first), { timeout: 5000 }).toBe(false);
  });

  it('close() ends the process before it resolves and fails a call still waiting', async () => {
    const shell = fakeShell();
    const pid = await pidOf(shell);
    const waiting = shell.run([write('hang')]);

    await shell.close();

    await expect(waiting).rejects.toThrow('the nft shell was closed');
    expect(alive(pid)).toBe(false);
  });

  it('rejects when nft cannot be started', async () => {
    const shell = new NftShell(['/nonexistent/nft'], { timeoutMs: 5000 });
    shells.push(shell);

    await expect(shell.run([write()])).rejects.toThrow(/ENOENT/);
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

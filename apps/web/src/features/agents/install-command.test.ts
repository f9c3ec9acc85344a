import { describe, expect, it } from 'vitest';
import { installCommand, shellWord } from './install-command';

describe('installCommand', () => {
  it('is the install script’s documented one-liner, with this server’s script and the token', () => {
    expect(installCommand('https://postern.example', 'AbC_-123')).toBe(
      'curl -fsSL https://postern.example/api/agent/install.sh | sudo sh -s -- --token AbC_-123',
    );
  });

  it('keeps a port and drops a trailing slash of the origin', () => {
    expect(installCommand('http://portal.example:8080/', 't0ken')).toBe(
      'curl -fsSL http://portal.example:8080/api/agent/install.sh | sudo sh -s -- --token t0ken',
    );
  });

  it('names the server with --server when given, without its trailing slash', () => {
    expect(installCommand('http://10.0.0.5:8080', 't0ken', 'http://10.0.0.5:8080/')).toBe(
      'curl -fsSL http://10.0.0.5:8080/api/agent/install.sh | sudo sh -s -- --token t0ken --server http://10.0.0.5:8080',
    );
  });

  it('quotes anything a shell would read as more than text', () => {
    expect(installCommand('https://x.example', "a'b;$(rm -rf /)")).toBe(
      `curl -fsSL https://x.example/api/agent/install.sh | sudo sh -s -- --token 'a'\\''b;$(rm -rf /)'`,
    );
  });
});

describe('shellWord', () => {
  it.each([
    ['plain-Token_1', 'plain-Token_1'],
    ['two words', "'two words'"],
    ['$HOME', "'$HOME'"],
    ['', "''"],
  ])('writes %j as %s', (value, word) => {
    expect(shellWord(value)).toBe(word);
  });
});

import { existsSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode } from './exit-codes.js';
import { readSession, removeSession, saveSession, type SavedSession } from './session-file.js';
import { permissions, tempDir } from './test-support/temp-dir.js';

const SESSION: SavedSession = {
  version: 1,
  server: 'https://postern.example',
  cookie: '__Host-postern_session=abc',
  userName: 'backup-bot',
  signedInAt: '2030-01-01T12:00:00.000Z',
  ends: '2030-01-01T20:00:00.000Z',
  knocs: ['k1'],
};

describe('the session file', () => {
  it('is saved with mode 600 in a directory created with mode 700, and read back', () => {
    const file = path.join(tempDir(), 'state', 'session.json');

    saveSession(file, SESSION);

    expect(permissions(statSync(file).mode)).toBe(0o600);
    expect(permissions(statSync(path.dirname(file)).mode)).toBe(0o700);
    expect(readSession(file)).toEqual(SESSION);
  });

  it('replaces the session saved before', () => {
    const file = path.join(tempDir(), 'session.json');
    saveSession(file, SESSION);

    saveSession(file, { ...SESSION, cookie: 'postern_session=def' });

    expect(readSession(file)?.cookie).toBe('postern_session=def');
  });

  it('reads as no session when missing, and removing a missing one is fine', () => {
    const file = path.join(tempDir(), 'session.json');

    expect(readSession(file)).toBeNull();
    expect(() => removeSession(file)).not.toThrow();
  });

  it('is deleted by removeSession', () => {
    const file = path.join(tempDir(), 'session.json');
    saveSession(file, SESSION);

    removeSession(file);

    expect(existsSync(file)).toBe(false);
  });

  it('refuses a file it did not write, as a configuration error', () => {
    const file = path.join(tempDir(), 'session.json');
    writeFileSync(file, '{"cookie": 1}');

    expect(() => readSession(file)).toThrow(expect.objectContaining({ exitCode: ExitCode.Usage }));
  });
});

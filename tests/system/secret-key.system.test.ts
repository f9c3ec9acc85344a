import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, waitFor, type Finished } from '@postern/test-support';
import { AdminApi } from './support/admin-api.js';
import { spawnPosternServer, sqliteStoreIn } from './support/postern-server.js';
import { missingBuild, requireTool } from './support/requirements.js';

const PASSWORD_LINE = /Its password is shown only this once:\n\n\s+(\S+)\n/;

/**
 * The built server refuses to start with a lost or wrong secret key once the store holds secrets
 * sealed with the right one: one line on stderr, a non-zero exit, and no new key file made over
 * them. (Before, a missing secret.key was silently replaced and a wrong POSTERN_SECRET_KEY accepted;
 * nothing showed until TOTP, SAML or a vendor knoc failed.)
 */
describe('the secret key at start-up', () => {
  const missing = missingBuild(REPO_ROOT);
  let dataDir: string;
  beforeEach((context) => {
    requireTool(context, missing);
    dataDir = mkdtempSync(path.join(tmpdir(), 'postern-secret-key-'));
  });
  afterEach(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  const keyFile = () => path.join(dataDir, 'secret.key');

  /** `node apps/server/dist/main.js serve` on this test's data directory, as `npm start` runs it. */
  const serve = (settings: Record<string, string> = {}) => spawnPosternServer(dataDir, settings);

  /** A first start that seals a secret (an agent's token), then a clean stop. */
  async function firstStartSealingASecret(settings: Record<string, string> = {}): Promise<void> {
    const server = await serve(settings);
    try {
      await server.process.waitForOutput(PASSWORD_LINE, 30_000);
      const adminPassword = PASSWORD_LINE.exec(server.process.stdout())?.[1] ?? '';
      const admin = await AdminApi.signIn({
        url: server.url,
        adminPassword,
        store: 'sqlite',
        storeLocation: sqliteStoreIn(dataDir),
        process: server.process,
        stop: () => Promise.resolve(),
      });
      // The agent's token is stored sealed with the key.
      await admin.call('POST', '/api/admin/agents', { Name: 'edge' });
    } finally {
      const stopped = await server.process.stop();
      expect(stopped.stderr).toBe('');
    }
  }

  /** A start that must be refused: it ends by itself, non-zero, with exactly one line on stderr. */
  async function refusedStart(settings: Record<string, string> = {}): Promise<Finished & { line: string }> {
    const server = await serve(settings);
    const ended = await Promise.race([
      server.process.finished,
      new Promise<null>((resolve) => setTimeout(() => resolve(null), 30_000).unref()),
    ]);
    if (ended === null) {
      await server.process.stop();
      throw new Error(`the server started instead of refusing:\n${server.process.stdout()}`);
    }
    expect(ended.code).toBe(2);
    expect(ended.stderr).toMatch(/^postern: [^\n]+\n$/);
    return { ...ended, line: ended.stderr.trimEnd() };
  }

  it('refuses to start when secret.key is gone, and makes no new one', async () => {
    await firstStartSealingASecret();
    rmSync(keyFile());

    const refused = await refusedStart();

    expect(refused.line).toBe(
      `postern: POSTERN_SECRET_KEY: ${keyFile()} is missing, but the store holds secrets sealed with the key it held; ` +
        'restore secret.key from the backup taken with the store (or set POSTERN_SECRET_KEY to that key). ' +
        'No new key is made: it could not open those secrets',
    );
    expect(existsSync(keyFile())).toBe(false);
  });

  it('refuses to start with a POSTERN_SECRET_KEY that is not the key the secrets are sealed with', async () => {
    const key = randomBytes(32).toString('base64');
    await firstStartSealingASecret({ POSTERN_SECRET_KEY: key });

    const refused = await refusedStart({ POSTERN_SECRET_KEY: randomBytes(32).toString('base64') });

    expect(refused.line).toMatch(
      /^postern: POSTERN_SECRET_KEY: the key from POSTERN_SECRET_KEY \(key [0-9a-f]{8}\) is not the key this store's secrets are sealed with \(key [0-9a-f]{8}\); restore secret\.key from the backup taken with the store, or set POSTERN_SECRET_KEY to that key$/,
    );
    // The right key still starts it: the refusal changed nothing.
    const again = await serve({ POSTERN_SECRET_KEY: key });
    try {
      await waitFor(
        async () => (await fetch(`${again.url}/api/status`).catch(() => null)) !== null,
        'the server',
        30_000,
      );
    } finally {
      await again.process.stop();
    }
    expect(again.process.stderr()).toBe('');
  });
});

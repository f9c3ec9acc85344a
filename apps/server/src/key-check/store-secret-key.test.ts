import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import type { AppContext } from '../app-context.js';
import { ConfigError } from '../config/config-error.js';
import { useTestStore } from '../test-support/use-test-store.js';
import { bothStores } from '../test-support/store-kinds.js';
import { givenUser } from '../test-support/factories.js';
import { confirmEnrolment } from '../sessions/totp-store.js';
import { newTotpSecret } from '../auth/totp.js';
import { SecretBox, sealedKeyId } from '../secrets/secret-box.js';
import { secretKeyFilePath } from '../secrets/secret-key.js';
import { checkStoreKey, loadStoreSecretBox } from './store-secret-key.js';

describe.each(bothStores())('the store secret key check (%s)', (kind) => {
  const t = useTestStore(kind);
  let keyFile: string;
  beforeEach(() => {
    keyFile = secretKeyFilePath(t.dataDir);
  });

  const load = (configured: Buffer | null) => loadStoreSecretBox(t.store.db, configured, t.dataDir);
  const storedCheck = async () =>
    (await t.store.db.selectFrom('storeMeta').select(['key', 'value']).execute()).find(
      (row) => row.key === 'secret-key-check',
    )?.value;

  /** A user with an enrolled TOTP secret sealed by `secrets`: a store as a release before the check left it. */
  async function givenSealedTotp(secrets: SecretBox): Promise<string> {
    const ctx = { db: t.store.db, clock: { now: () => Date.UTC(2026, 10, 22) } } as unknown as AppContext;
    const user = await givenUser(ctx, { totpEnabled: true });
    await confirmEnrolment(t.store.db, secrets, 'users', user.id, newTotpSecret(), 0);
    return user.id;
  }

  /** The refusal, checked to be the one line main.ts prints for a ConfigError. */
  async function refusal(loading: Promise<unknown>): Promise<string> {
    const error = await loading.then(
      () => null,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    expect(message).not.toContain('\n');
    return message;
  }

  it('on a new store makes a key file and records a check that is neither the key nor its hash', async () => {
    const { secrets, fromFile } = await load(null);
    expect(fromFile).toBe(true);
    const key = readFileSync(keyFile, 'utf8').trim();
    const check = await storedCheck();
    expect(check).toBeDefined();
    expect(sealedKeyId(check ?? '')).toBe(secrets.currentKeyId);
    expect(check).not.toContain(key);
    expect(check).not.toContain(Buffer.from(key, 'base64').toString('hex'));
  });

  it('starts again with the same key file, and with the same key set as POSTERN_SECRET_KEY', async () => {
    const first = await load(null);
    const check = await storedCheck();
    const again = await load(null);
    expect(again.secrets.currentKeyId).toBe(first.secrets.currentKeyId);
    const key = Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'base64');
    expect((await load(key)).secrets.currentKeyId).toBe(first.secrets.currentKeyId);
    expect(await storedCheck()).toBe(check);
  });

  it('refuses a POSTERN_SECRET_KEY that is not the key of the check, naming both key ids', async () => {
    const { secrets } = await load(randomBytes(32));
    const wrongKey = randomBytes(32);
    const message = await refusal(load(wrongKey));
    expect(message).toMatch(
      `POSTERN_SECRET_KEY: the key from POSTERN_SECRET_KEY (key ${new SecretBox([wrongKey]).currentKeyId}) ` +
        `is not the key this store's secrets are sealed with (key ${secrets.currentKeyId})`,
    );
    expect(message).toMatch(/restore secret\.key from the backup/);
  });

  it('refuses a key file that is not the key of the check, naming the file', async () => {
    await load(null);
    writeFileSync(keyFile, randomBytes(32).toString('base64') + '\n', { mode: 0o600 });
    expect(await refusal(load(null))).toContain(`the key from ${keyFile} `);
  });

  it('refuses to replace a missing key file once a check is recorded, and makes none', async () => {
    await load(null);
    // Nothing sealed yet but the check: the key may already be in backups and on other replicas.
    rmSync(keyFile);
    expect(await refusal(load(null))).toBe(
      `POSTERN_SECRET_KEY: ${keyFile} is missing, but the store holds secrets sealed with the key it held; ` +
        'restore secret.key from the backup taken with the store (or set POSTERN_SECRET_KEY to that key). ' +
        'No new key is made: it could not open those secrets',
    );
    expect(existsSync(keyFile)).toBe(false);
  });

  it('refuses to make a key file over sealed secrets a store from before the check holds', async () => {
    await givenSealedTotp(new SecretBox([randomBytes(32)]));
    expect(await refusal(load(null))).toMatch(/secret\.key is missing, but the store holds secrets/);
    expect(existsSync(keyFile)).toBe(false);
    expect(await storedCheck()).toBeUndefined();
  });

  it('records the check on a store from before it when the key opens its sealed secrets', async () => {
    const key = randomBytes(32);
    await givenSealedTotp(new SecretBox([key]));
    const { secrets } = await load(key);
    expect(sealedKeyId((await storedCheck()) ?? '')).toBe(secrets.currentKeyId);
  });

  it('refuses a key that opens none of the sealed secrets of a store from before the check', async () => {
    const sealedWith = new SecretBox([randomBytes(32)]);
    await givenSealedTotp(sealedWith);
    expect(await refusal(load(randomBytes(32)))).toContain(`sealed with (key ${sealedWith.currentKeyId})`);
    expect(await storedCheck()).toBeUndefined();
  });

  it('accepts the right key on a store from before the check even when some sealed values are damaged', async () => {
    const key = randomBytes(32);
    const box = new SecretBox([key]);
    const [first, second] = [await givenSealedTotp(box), await givenSealedTotp(box)];
    // The first row's secret now sits in the second row too: it cannot be opened there.
    const row = await t.store.db
      .selectFrom('users')
      .select('totpSecret')
      .where('id', '=', first)
      .executeTakeFirstOrThrow();
    await t.store.db.updateTable('users').set({ totpSecret: row.totpSecret }).where('id', '=', second).execute();
    await t.store.db.updateTable('users').set({ totpSecret: 'v1.garbage' }).where('id', '=', first).execute();
    // No value opens: even the right key cannot be told from a wrong one.
    await expect(load(key)).rejects.toThrow(ConfigError);
    await givenSealedTotp(box);
    await expect(load(key)).resolves.toBeDefined();
  });

  it('keeps a rotation working: a check sealed with the previous key is sealed again with the new one', async () => {
    const previous = randomBytes(32);
    await checkStoreKey(t.store.db, new SecretBox([previous]), 'test');
    const next = randomBytes(32);
    const rotated = new SecretBox([next, previous]);
    await checkStoreKey(t.store.db, rotated, 'test');
    expect(sealedKeyId((await storedCheck()) ?? '')).toBe(rotated.currentKeyId);
    // From now on the new key alone passes, and the previous one alone no longer does.
    await checkStoreKey(t.store.db, new SecretBox([next]), 'test');
    await expect(checkStoreKey(t.store.db, new SecretBox([previous]), 'test')).rejects.toThrow(ConfigError);
  });
});

import { describe, expect, it } from 'vitest';
import { useTestApp } from '../test-support/use-test-app.js';
import { givenAdmin, givenUser } from '../test-support/factories.js';
import { givenEnrolledTotp } from '../test-support/totp.js';
import { givenAgent } from '../test-support/agent-factories.js';
import { givenBackend, givenEnforcedKnoc } from '../test-support/knoc-factories.js';
import { storePendingSecret } from '../sessions/totp-store.js';
import { findAdminById } from '../admins/admins.repo.js';
import { generateSamlKeyCert } from '../settings/settings.service.js';
import { sealedValuesInStore, storeHoldsSealedValues } from './sealed-values.js';

/** Generating the SAML key pair (RSA 3072) takes seconds of CPU on a busy machine. */
const KEY_GENERATION_TIMEOUT_MS = 60_000;

describe('sealed values in the store (sqlite)', { timeout: KEY_GENERATION_TIMEOUT_MS }, () => {
  const t = useTestApp('sqlite');

  it('finds none in a new store', async () => {
    expect(await storeHoldsSealedValues(t.ctx.db)).toBe(false);
  });

  it('finds every place the services seal a secret, each opening where it is', async () => {
    const admin = await givenAdmin(t.ctx, { totpEnabled: true });
    await givenEnrolledTotp(t, 'admins', admin.id);
    const user = await givenUser(t.ctx, { totpEnabled: true });
    await storePendingSecret(t.ctx.db, t.ctx.secrets, 'users', user.id, 'JBSWY3DPEHPK3PXP');
    const actor = await findAdminById(t.ctx.db, admin.id);
    if (actor === null) throw new Error('no admin');
    await generateSamlKeyCert(t.ctx, actor, 'admin');
    const agent = await givenAgent(t.ctx);
    const vendor = await givenBackend(t.ctx, {
      type: 'fortios',
      agentId: agent.id,
      config: { Url: 'https://fw.example.com', Bearer: 'bearer-secret' },
    });
    const scripts = await givenBackend(t.ctx, { type: 'script', agentId: agent.id, config: { Command: 'notify.sh' } });
    const knoc = await givenEnforcedKnoc(t.ctx, {
      backendId: scripts.id,
      type: 'script',
      aclConfig: {
        Name: 'notify',
        EnvVars: [
          { Name: 'PLAIN', Value: 'visible' },
          { Name: 'TOKEN', Value: 'token-secret', Sensitive: true },
        ],
      },
    });

    const found = [];
    for await (const value of sealedValuesInStore(t.ctx.db)) {
      expect(() => t.ctx.secrets.open(value.sealed, value.context)).not.toThrow();
      found.push(value.context);
    }

    expect(await storeHoldsSealedValues(t.ctx.db)).toBe(true);
    expect(found).toEqual([
      { table: 'settings', column: 'value', rowId: 'AdminSAMLKeyFile' },
      { table: 'admins', column: 'totp_secret', rowId: admin.id },
      { table: 'users', column: 'totp_pending_secret', rowId: user.id },
      { table: 'agents', column: 'token_secret', rowId: agent.id },
      { table: 'backends', column: 'config.Bearer', rowId: vendor.id },
      { table: 'knocs', column: 'config.EnvVars.TOKEN', rowId: knoc.id },
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import { ErrorCodes, RECORDED, type BackendRecord } from '@postern/protocol';
import { openSealed } from '@postern/protocol/sealing';
import { FORTIOS, useBackendsApiWorld } from '../test-support/backend-api-fixtures.js';

const SECRET = 'webhook-secret-0123456789';
const HOOK = 'https://hooks.example.com/postern/grant';

// Script backends (programs and webhooks) and the Fortinet config's own message.
describe.each(['sqlite'] as const)('script and Fortinet backend validation (%s)', (kind) => {
  const world = useBackendsApiWorld(kind);
  const { call, createOk, refusal, storedConfig } = world;
  const create = (config: object, name = 'hook') =>
    call('POST', '/api/admin/backends', { Name: name, AgentID: world.agent.id, Config: config });
  const update = (backend: BackendRecord, config: object) =>
    call('PUT', `/api/admin/backends/${backend.ID}`, {
      ID: backend.ID,
      Name: backend.Name,
      AgentID: world.agent.id,
      Config: config,
    });

  describe('environment variable names', () => {
    const repeated = { Command: 'notify.sh', EnvVars: [{ Name: 'API_KEY' }, { Name: 'API_KEY', Sensitive: true }] };

    it('refuses a repeated name on create (400 err.repeatedEnvVarNames)', async () => {
      expect(refusal(await create({ script: repeated }))).toEqual({
        status: 400,
        Err: ErrorCodes.repeatedEnvVarNames,
        Extra: 'Config.script.EnvVars.1.Name',
      });
    });

    it('refuses a repeated name on update, names differing only after trimming included', async () => {
      const backend = await createOk({
        Name: 'script',
        AgentID: world.agent.id,
        Config: { script: { Command: 'notify.sh' } },
      });
      const response = await update(backend, {
        script: { Command: 'notify.sh', EnvVars: [{ Name: 'TOKEN' }, { Name: ' TOKEN ' }] },
      });
      expect(refusal(response)).toEqual({
        status: 400,
        Err: ErrorCodes.repeatedEnvVarNames,
        Extra: 'Config.script.EnvVars.1.Name',
      });
    });

    it('accepts distinct names', async () => {
      const backend = await createOk({
        Name: 'script',
        AgentID: world.agent.id,
        Config: { script: { Command: 'notify.sh', EnvVars: [{ Name: 'API_KEY' }, { Name: 'api_key' }] } },
      });
      expect(backend.Config.script?.EnvVars).toHaveLength(2);
    });
  });

  describe('webhook mode', () => {
    it.each([
      ['plain http to another host', 'http://hooks.example.com/grant', ErrorCodes.webhookUrlNotEncrypted],
      ['a scheme other than http(s)', 'ftp://hooks.example.com/grant', ErrorCodes.urlMustBeHttp],
      ['credentials in the URL', 'https://user:pw@hooks.example.com/', ErrorCodes.urlCredentialsNotAllowed],
      ['a malformed host', 'https://hooks example.com/', ErrorCodes.urlInvalid],
    ])('refuses %s, as the agent would', async (_case, url, code) => {
      expect(refusal(await create({ script: { Command: url, WebhookSecret: SECRET } }))).toEqual({
        status: 400,
        Err: code,
        Extra: 'Config.script.Command',
      });
    });

    it.each([
      ['no secret', {}],
      ['an empty secret', { WebhookSecret: '' }],
      ['a secret shorter than 16 characters', { WebhookSecret: 'short-secret' }],
    ])('refuses a webhook with %s (400 err.webhookSecretRequired)', async (_case, secret) => {
      expect(refusal(await create({ script: { Command: HOOK, ...secret } }))).toEqual({
        status: 400,
        Err: ErrorCodes.webhookSecretRequired,
        Extra: 'Config.script.WebhookSecret',
      });
    });

    it('accepts an https webhook and plain http to loopback, the secret write-only and sealed to the agent', async () => {
      const backend = await createOk({
        Name: 'hook',
        AgentID: world.agent.id,
        Config: { script: { Command: HOOK, WebhookSecret: SECRET } },
      });
      expect(backend.Config.script).toEqual({ Command: HOOK, EnvVars: [], WebhookSecret: RECORDED });
      expect((await call('GET', '/api/admin/backends')).body).not.toContain(SECRET);
      const stored = await storedConfig(backend.ID);
      expect(stored.WebhookSecret).toMatch(/^sealed:v1:/);
      const place = { owner: 'backend' as const, ownerId: backend.ID, field: 'WebhookSecret' };
      expect(openSealed(world.agent.sealing!.privateKey, String(stored.WebhookSecret), place)).toBe(SECRET);

      await createOk({
        Name: 'local',
        AgentID: world.agent.id,
        Config: { script: { Command: 'http://127.0.0.1:9000/hook', WebhookSecret: SECRET } },
      });
    });

    it('keeps the stored secret on update, but asks for it again when the URL changes', async () => {
      const backend = await createOk({
        Name: 'hook',
        AgentID: world.agent.id,
        Config: { script: { Command: HOOK, WebhookSecret: SECRET } },
      });
      const kept = await update(backend, {
        script: { Command: HOOK, WebhookSecret: RECORDED, EnvVars: [{ Name: 'A' }] },
      });
      expect(kept.statusCode, kept.body).toBe(200);
      expect((await storedConfig(backend.ID)).WebhookSecret).toMatch(/^sealed:v1:/);

      const moved = await update(backend, {
        script: { Command: 'https://other.example.com/', WebhookSecret: RECORDED },
      });
      expect(refusal(moved)).toEqual({ status: 400, Err: ErrorCodes.reenterCredentials, Extra: 'WebhookSecret' });
      const reentered = await update(backend, {
        script: { Command: 'https://other.example.com/', WebhookSecret: SECRET },
      });
      expect(reentered.statusCode, reentered.body).toBe(200);
    });

    it('refuses turning a program into a webhook without a secret, and leaves programs without one alone', async () => {
      const backend = await createOk({
        Name: 'script',
        AgentID: world.agent.id,
        Config: { script: { Command: 'notify.sh' } },
      });
      expect(backend.Config.script?.WebhookSecret).toBe('');
      const renamed = await update(backend, { script: { Command: 'close.sh' } });
      expect(renamed.statusCode, renamed.body).toBe(200);

      expect(refusal(await update(backend, { script: { Command: HOOK } }))).toEqual({
        status: 400,
        Err: ErrorCodes.webhookSecretRequired,
        Extra: 'Config.script.WebhookSecret',
      });
    });

    it('updates a script backend stored before webhooks existed (no WebhookSecret field)', async () => {
      const backend = await createOk({
        Name: 'old',
        AgentID: world.agent.id,
        Config: { script: { Command: 'notify.sh' } },
      });
      await world.t.ctx.db
        .updateTable('backends')
        .set({ config: JSON.stringify({ Command: 'notify.sh', EnvVars: [] }) })
        .where('id', '=', backend.ID)
        .execute();
      const response = await update(backend, { script: { Command: 'other.sh', WebhookSecret: RECORDED } });
      expect(response.statusCode, response.body).toBe(200);
    });
  });

  describe('Fortinet config', () => {
    it.each([
      ['without its Bearer token', { Url: FORTIOS.Url }, 'Config.fortios.Bearer'],
      ['with a Prefix that is no text', { ...FORTIOS, Prefix: 7 }, 'Config.fortios.Prefix'],
      ['with an unknown Insecure value', { ...FORTIOS, Insecure: 'sometimes' }, 'Config.fortios.Insecure'],
    ])("answers 'The provided Fortinet config was invalid' for a config %s", async (_case, fields, extra) => {
      expect(refusal(await create({ fortios: fields }, 'fw'))).toEqual({
        status: 400,
        Err: ErrorCodes.invalidFortinetConfig,
        Extra: extra,
      });
    });

    it("keeps the spec's own URL message for a Fortinet URL that is not http(s)", async () => {
      expect(refusal(await create({ fortios: { ...FORTIOS, Url: 'ftp://fw' } }, 'fw'))).toEqual({
        status: 400,
        Err: ErrorCodes.urlMustBeHttp,
        Extra: 'Config.fortios.Url',
      });
    });
  });
});

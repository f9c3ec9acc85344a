import { beforeEach, describe, expect, it } from 'vitest';
import { ErrorCodes, RECORDED, type KnocRecord } from '@postern/protocol';
import { type TestApp } from '../test-support/test-app.js';
import { givenBackend } from '../test-support/knoc-factories.js';
import { UNKNOWN_ID } from '../test-support/admin-api-world.js';
import { BASE64URL, useKnocsApiWorld, type KnocsApiWorld } from '../test-support/knoc-api-fixtures.js';
import { findKnocRow } from './knocs.repo.js';
import { SealedValueError, openSealed } from '@postern/protocol/sealing';
import {
  agentCapabilities,
  givenAgent,
  givenSealingKey,
  type GivenSealingKey,
} from '../test-support/agent-factories.js';
import { SecretUnreadableError } from '../secrets/secret-box.js';
import { envVarPlace, loadKnocConfigForAgent } from './knoc-config.js';

// The config of the types that need more than checking: allowlist tokens and script variables.
describe.each(['sqlite'] as const)('knocs API (%s)', (kind) => {
  const world = useKnocsApiWorld(kind);
  const { call, refusal, create, createOk, getOk, update } = world;
  let t: TestApp;
  let agent: KnocsApiWorld['agent'];
  let published: KnocsApiWorld['published'];
  beforeEach(() => {
    ({ t, agent, published } = world);
  });
  const rawConfig = async (id: string) => {
    const row = await t.ctx.db.selectFrom('knocs').select('config').where('id', '=', id).executeTakeFirstOrThrow();
    return JSON.parse(row.config) as Record<string, Record<string, unknown>>;
  };

  describe('allowlist knocs', () => {
    const allowlist = (fields: object, extra: object = {}) => ({
      Description: 'Partner firewall',
      BackendID: published.id,
      Config: { allowlist: fields },
      ...extra,
    });

    it.each([
      ['no key and no access by IP', {}],
      ['access by IP without addresses', { AllowAccessByIp: true, AllowedIpAddresses: [] }],
      ['addresses without access by IP', { AllowAccessByIp: false, AllowedIpAddresses: ['203.0.113.0/24'] }],
    ])('refuses %s (err.allowlistAccessIpRestrictionFormRequired)', async (_case, fields) => {
      const response = await create(allowlist(fields));
      expect(refusal(response)).toEqual({
        status: 400,
        Err: ErrorCodes.allowlistAccessIpRestrictionFormRequired,
        Extra: 'Config.allowlist',
      });
    });

    it('refuses an unknown API key', async () => {
      const response = await create(allowlist({ ApiKeyId: UNKNOWN_ID }));
      expect(refusal(response)).toEqual({
        status: 400,
        Err: ErrorCodes.badRequest,
        Extra: 'Config.allowlist.ApiKeyId: unknown API key',
      });
    });

    it('makes the Token on create and keeps it (and the UriToken) on update, whatever is sent', async () => {
      const id = await createOk(
        allowlist({ Token: 'chosen-by-admin', AllowAccessByIp: true, AllowedIpAddresses: ['203.0.113.0/24'] }),
      );
      const created = await getOk(id);
      const token = (created.AclConfig.allowlist as { Token: string }).Token;
      expect(token).not.toBe('chosen-by-admin');
      expect(token).toMatch(BASE64URL);
      expect(token).toHaveLength(43);
      const response = await update(
        id,
        allowlist(
          { Token: 'another', AllowAccessByIp: true, AllowedIpAddresses: ['198.51.100.0/24'] },
          { Description: 'Renamed' },
        ),
      );
      expect(response.statusCode, response.body).toBe(200);
      const updated = response.json<{ data: KnocRecord }>().data;
      expect(updated.AclConfig).toEqual({
        allowlist: { Token: token, ApiKeyId: '', AllowAccessByIp: true, AllowedIpAddresses: ['198.51.100.0/24'] },
      });
      expect(updated.Config.UriToken).toBe(created.Config.UriToken);
      expect(updated).toMatchObject({ AgentID: '00000000-0000-0000-0000-000000000000', AgentName: '' });
    });
  });

  describe('script variables', () => {
    let scripts: { id: string };
    beforeEach(async () => {
      scripts = await givenBackend(t.ctx, {
        type: 'script',
        agentId: agent.id,
        config: { Command: 'notify.sh', EnvVars: [{ Name: 'DECLARED_SECRET', Sensitive: true }] },
      });
    });
    const scriptKnoc = (envVars: object[], backendId = scripts.id) => ({
      Description: 'Notify',
      BackendID: backendId,
      Config: { script: { Name: 'notify', EnvVars: envVars } },
    });
    /** The stored variables with every sealed value opened by `key` (the agent's by default). */
    const openedVars = async (id: string, key: GivenSealingKey = agent.sealing!) => {
      const vars = (await rawConfig(id)).script?.EnvVars as { Name: string; Value: string; Encrypted: boolean }[];
      return vars.map((variable) =>
        variable.Encrypted
          ? openSealed(key.privateKey, variable.Value, envVarPlace(id, variable.Name))
          : variable.Value,
      );
    };

    it('stores sensitive values encrypted, shows them as RECORDED and opens them for the agent', async () => {
      const id = await createOk(
        scriptKnoc([
          { Name: 'PLAIN', Value: 'visible' },
          { Name: 'TOKEN', Value: 'token-secret', Sensitive: true },
          { Name: 'DECLARED_SECRET', Value: 'declared-secret' },
        ]),
      );
      const knoc = await getOk(id);
      expect(knoc.AclConfig).toEqual({
        script: {
          Name: 'notify',
          EnvVars: [
            { Name: 'PLAIN', Value: 'visible', Sensitive: false, Encrypted: false },
            { Name: 'TOKEN', Value: RECORDED, Sensitive: true, Encrypted: true },
            { Name: 'DECLARED_SECRET', Value: RECORDED, Sensitive: true, Encrypted: true },
          ],
        },
      });
      const stored = JSON.stringify(await rawConfig(id));
      expect(stored).not.toContain('token-secret');
      expect(stored).not.toContain('declared-secret');
      expect(JSON.stringify((await call('GET', '/api/admin/acls')).json())).not.toContain('token-secret');
      const vars = (await rawConfig(id)).script?.EnvVars as { Name: string; Value: string }[];
      const token = vars[1]?.Value ?? '';
      expect(token).toMatch(/^sealed:v1:/);
      // Sealed to the agent: the server's key does not open it, the agent's does, another agent's does not.
      expect(() => t.ctx.secrets.open(token, { table: 'knocs', column: 'config.EnvVars.TOKEN', rowId: id })).toThrow(
        SecretUnreadableError,
      );
      expect(await openedVars(id)).toEqual(['visible', 'token-secret', 'declared-secret']);
      await expect(openedVars(id, givenSealingKey())).rejects.toThrow(SealedValueError);
      // The agent is sent the values as stored: sealed.
      const row = await findKnocRow(t.ctx.db, id);
      expect(loadKnocConfigForAgent(t.ctx, row!, agent.sealing!.publicKey)).toEqual({
        Name: 'notify',
        EnvVars: [
          { Name: 'PLAIN', Value: 'visible', Sensitive: false },
          { Name: 'TOKEN', Value: token, Sensitive: true },
          { Name: 'DECLARED_SECRET', Value: vars[2]?.Value, Sensitive: true },
        ],
      });
    });

    it('asks again for sealed values when the knoc moves to another agent or a value stops being sensitive', async () => {
      const id = await createOk(scriptKnoc([{ Name: 'TOKEN', Value: 'token-secret', Sensitive: true }]));
      const other = await givenAgent(t.ctx, { name: 'edge-2', capabilities: agentCapabilities(), version: '1.9.0' });
      const elsewhere = await givenBackend(t.ctx, { type: 'script', agentId: other.id, config: { Command: 'n.sh' } });
      const kept = [{ Name: 'TOKEN', Value: RECORDED, Sensitive: true, Encrypted: true }];
      expect(refusal(await update(id, scriptKnoc(kept, elsewhere.id)))).toEqual({
        status: 400,
        Err: ErrorCodes.envVarValueRequired,
        Extra: 'TOKEN',
      });
      expect(refusal(await update(id, scriptKnoc([{ Name: 'TOKEN', Value: RECORDED, Sensitive: false }])))).toEqual({
        status: 400,
        Err: ErrorCodes.envVarValueRequired,
        Extra: 'TOKEN',
      });
      const moved = await update(id, scriptKnoc([{ Name: 'TOKEN', Value: 'token-2', Sensitive: true }], elsewhere.id));
      expect(moved.statusCode, moved.body).toBe(200);
      expect(await openedVars(id, other.sealing!)).toEqual(['token-2']);
    });

    it('keeps a sensitive value sent back as RECORDED or empty, and replaces a new one', async () => {
      const id = await createOk(
        scriptKnoc([
          { Name: 'A', Value: 'secret-a', Sensitive: true },
          { Name: 'B', Value: 'secret-b', Sensitive: true },
          { Name: 'C', Value: 'secret-c', Sensitive: true },
        ]),
      );
      const before = (await rawConfig(id)).script?.EnvVars as { Value: string }[];
      const response = await update(
        id,
        scriptKnoc([
          { Name: 'A', Value: RECORDED, Sensitive: true, Encrypted: true },
          { Name: 'B', Value: '', Sensitive: true, Encrypted: true },
          { Name: 'C', Value: 'secret-c2', Sensitive: true },
        ]),
      );
      expect(response.statusCode, response.body).toBe(200);
      const after = (await rawConfig(id)).script?.EnvVars as { Value: string }[];
      expect(after[0]?.Value).toBe(before[0]?.Value);
      expect(after[1]?.Value).toBe(before[1]?.Value);
      expect(await openedVars(id)).toEqual(['secret-a', 'secret-b', 'secret-c2']);
    });

    it('requires a value unless an encrypted one is stored (err.envVarValueRequired)', async () => {
      const response = await create(scriptKnoc([{ Name: 'EMPTY', Value: '' }]));
      expect(refusal(response)).toEqual({ status: 400, Err: ErrorCodes.envVarValueRequired, Extra: 'EMPTY' });
      const id = await createOk(scriptKnoc([{ Name: 'PLAIN', Value: 'x' }]));
      const cleared = await update(id, scriptKnoc([{ Name: 'PLAIN', Value: '' }]));
      expect(refusal(cleared)).toEqual({ status: 400, Err: ErrorCodes.envVarValueRequired, Extra: 'PLAIN' });
      const placeholder = await update(
        id,
        scriptKnoc([{ Name: 'NEW', Value: RECORDED, Sensitive: true, Encrypted: true }]),
      );
      expect(refusal(placeholder)).toEqual({ status: 400, Err: ErrorCodes.envVarValueRequired, Extra: 'NEW' });
    });
  });
});

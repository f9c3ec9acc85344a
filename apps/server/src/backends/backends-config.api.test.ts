import { describe, expect, it } from 'vitest';
import { ErrorCodes, RECORDED, type BackendRecord } from '@postern/protocol';
import { FORTIOS, useBackendsApiWorld } from '../test-support/backend-api-fixtures.js';
import { SealedValueError, openSealed } from '@postern/protocol/sealing';
import {
  agentCapabilities,
  givenAgent,
  givenSealingKey,
  type GivenSealingKey,
} from '../test-support/agent-factories.js';
import { SecretUnreadableError } from '../secrets/secret-box.js';
import { findBackendRow, loadBackendConfigForAgent } from './backends.repo.js';

// What a backend's config may hold, the addresses in it, and how its secrets are kept.
describe.each(['sqlite'] as const)('backends API (%s)', (kind) => {
  const world = useBackendsApiWorld(kind);
  const { call, createOk, refusal, storedConfig } = world;

  describe('config validation', () => {
    it.each([
      ['no type', {}, ErrorCodes.backendConfigOneType],
      ['two types', { ipset: {}, allowlist: {} }, ErrorCodes.backendConfigOneType],
      ['an unknown type', { juniper: {} }, ErrorCodes.backendConfigOneType],
      [
        'a unix socket that is no path',
        { haproxy: { Protocol: 'unix', Address: 'haproxy.sock' } },
        ErrorCodes.invalidAddress,
      ],
      [
        'a tcp address without a port',
        { haproxy: { Protocol: 'tcp', Address: '127.0.0.1' } },
        ErrorCodes.invalidAddress,
      ],
      ['a Fortinet URL that is not http', { fortios: { ...FORTIOS, Url: 'ftp://fw' } }, ErrorCodes.urlMustBeHttp],
    ])('refuses %s', async (_case, config, code) => {
      const response = await call('POST', '/api/admin/backends', {
        Name: 'b',
        AgentID: world.agent.id,
        Config: config,
      });
      expect(response.statusCode).toBe(400);
      expect(response.json<{ Err: string }>().Err).toBe(code);
    });

    it.each([
      ['haproxy', { Protocol: 'unix' }],
      ['knocproxy', { Address: '127.0.0.1:8080' }],
      ['script', {}],
      ['fortios', { Url: 'https://fw' }],
      ['panos', { Hostname: 'pan' }],
    ])('refuses %s without its required fields', async (type, fields) => {
      const response = await call('POST', '/api/admin/backends', {
        Name: 'b',
        AgentID: world.agent.id,
        Config: { [type]: fields },
      });
      expect(response.statusCode).toBe(400);
    });

    it('stores the Cisco FMC Domain and Deploy mode (defaults: login domain, automatic) and reads them back', async () => {
      const fmc = { Hostname: 'fmc.example.net', Username: 'api', Password: 'fmc-secret-1' };
      const plain = await createOk({ Name: 'fmc', AgentID: world.agent.id, Config: { firepower: fmc } });
      expect(plain.Config.firepower).toMatchObject({ Domain: '', Deploy: 'automatic', Password: RECORDED });
      const response = await call('PUT', `/api/admin/backends/${plain.ID}`, {
        ID: plain.ID,
        Name: 'fmc',
        AgentID: world.agent.id,
        Config: { firepower: { ...fmc, Password: RECORDED, Domain: 'Global/Branch', Deploy: 'onlyWhenOnlyPostern' } },
      });
      expect(response.statusCode, response.body).toBe(200);
      const listed = (await call('GET', '/api/admin/backends')).json<{ data: BackendRecord[] }>().data;
      expect(listed.find((b) => b.ID === plain.ID)?.Config.firepower).toMatchObject({
        Domain: 'Global/Branch',
        Deploy: 'onlyWhenOnlyPostern',
      });
      const refused = await call('POST', '/api/admin/backends', {
        Name: 'fmc2',
        AgentID: world.agent.id,
        Config: { firepower: { ...fmc, Deploy: 'always' } },
      });
      expect(refused.statusCode).toBe(400);
      expect(refused.json<{ Extra?: string }>().Extra).toMatch(/^Config\.firepower\.Deploy\b/);
    });

    it('refuses a second backend with the same name (409 err.backendNameExists)', async () => {
      await createOk({ Name: 'same', Config: { allowlist: {} } });
      const response = await call('POST', '/api/admin/backends', { Name: 'same', Config: { allowlist: {} } });
      expect(refusal(response)).toEqual({ status: 409, Err: ErrorCodes.backendNameExists, Extra: 'Name' });
    });
  });

  describe('admin-configured addresses are checked when saved', () => {
    const PANOS = { Hostname: 'pan.example.net', ApiKey: 'pan-key-1' };
    it.each([
      [
        'a Fortinet URL with credentials',
        { fortios: { ...FORTIOS, Url: 'https://admin:pw@fw.example.net' } },
        { Err: ErrorCodes.urlCredentialsNotAllowed, Extra: 'Config.fortios.Url' },
      ],
      [
        'a Fortinet URL with a space in its host',
        { fortios: { ...FORTIOS, Url: 'https://fw example.net' } },
        { Err: ErrorCodes.urlInvalid, Extra: 'Config.fortios.Url' },
      ],
      [
        'a Fortinet URL with an octal-looking address',
        { fortios: { ...FORTIOS, Url: 'https://010.0.0.1' } },
        { Err: ErrorCodes.urlInvalid, Extra: 'Config.fortios.Url' },
      ],
      [
        'a PAN-OS Hostname that is a URL',
        { panos: { ...PANOS, Hostname: 'https://pan.example.net' } },
        { Err: ErrorCodes.invalidHostname, Extra: 'Config.panos.Hostname' },
      ],
      [
        'a FortiManager Hostname with credentials',
        { fortimanager: { Hostname: 'admin@fmg.example.net', ApiKey: 'k' } },
        { Err: ErrorCodes.invalidHostname, Extra: 'Config.fortimanager.Hostname' },
      ],
      [
        'a FMC Hostname with a newline',
        { firepower: { Hostname: 'fmc\n.example.net', Username: 'u', Password: 'p' } },
        { Err: ErrorCodes.invalidHostname, Extra: 'Config.firepower.Hostname' },
      ],
      [
        'a Sophos UTM Hostname with a path',
        { sophosutm: { Hostname: 'utm.example.net/api', ApiKey: 'k' } },
        { Err: ErrorCodes.invalidHostname, Extra: 'Config.sophosutm.Hostname' },
      ],
      [
        'a Sophos Firewall Hostname with a bad port',
        { sophossfos: { Hostname: 'sfos.example.net:70000', Username: 'u', Password: 'p' } },
        { Err: ErrorCodes.invalidHostname, Extra: 'Config.sophossfos.Hostname' },
      ],
    ])('refuses %s on create', async (_case, config, expected) => {
      const response = await call('POST', '/api/admin/backends', {
        Name: 'vendor',
        AgentID: world.agent.id,
        Config: config,
      });
      expect(refusal(response)).toEqual({ status: 400, ...expected });
    });

    it.each([
      ['Hostname', { Hostname: 'pan.example.net/api', ApiKey: 'k2' }, ErrorCodes.invalidHostname],
      ['Hostname', { Hostname: 'ops:pw@pan.example.net', ApiKey: 'k2' }, ErrorCodes.invalidHostname],
    ])('refuses a bad %s on update and keeps the stored one', async (field, fields, code) => {
      const backend = await createOk({ Name: 'pan', AgentID: world.agent.id, Config: { panos: PANOS } });
      const response = await call('PUT', `/api/admin/backends/${backend.ID}`, {
        ID: backend.ID,
        Name: 'pan',
        AgentID: world.agent.id,
        Config: { panos: fields },
      });
      expect(refusal(response)).toEqual({ status: 400, Err: code, Extra: `Config.panos.${field}` });
      expect((await findBackendRow(world.t.ctx.db, backend.ID))?.config.Hostname).toBe(PANOS.Hostname);
    });

    it('refuses a Fortinet URL with credentials on update', async () => {
      const backend = await createOk({ Name: 'fw', AgentID: world.agent.id, Config: { fortios: FORTIOS } });
      const response = await call('PUT', `/api/admin/backends/${backend.ID}`, {
        ID: backend.ID,
        Name: 'fw',
        AgentID: world.agent.id,
        Config: { fortios: { ...FORTIOS, Url: 'https://admin:pw@fw.example.net' } },
      });
      expect(refusal(response)).toEqual({
        status: 400,
        Err: ErrorCodes.urlCredentialsNotAllowed,
        Extra: 'Config.fortios.Url',
      });
    });

    it('still reads a backend stored before the rule, and its agent still gets it', async () => {
      const backend = await createOk({ Name: 'pan', AgentID: world.agent.id, Config: { panos: PANOS } });
      const stored = await storedConfig(backend.ID);
      await world.t.ctx.db
        .updateTable('backends')
        .set({ config: JSON.stringify({ ...stored, Hostname: 'pan old.example.net' }) })
        .where('id', '=', backend.ID)
        .execute();
      const read = await call('GET', `/api/admin/backends/${backend.ID}`);
      expect(read.statusCode).toBe(200);
      expect(read.json<{ data: BackendRecord }>().data.Config.panos?.Hostname).toBe('pan old.example.net');
      expect((await call('GET', '/api/admin/backends')).statusCode).toBe(200);
      const row = await findBackendRow(world.t.ctx.db, backend.ID);
      expect(loadBackendConfigForAgent(world.t.ctx, row!, world.agent.sealing!.publicKey)).toMatchObject({
        Hostname: 'pan old.example.net',
      });
    });
  });

  describe('secrets', () => {
    /** The agent's sealing key (world.agent registered one, as a connected agent does). */
    const agentKey = () => world.agent.sealing!;
    const open = (key: GivenSealingKey, value: unknown, backendId: string, field: string) =>
      openSealed(key.privateKey, String(value), { owner: 'backend', ownerId: backendId, field });
    const forAgent = async (id: string) => {
      const row = await findBackendRow(world.t.ctx.db, id);
      return loadBackendConfigForAgent(world.t.ctx, row!, agentKey().publicKey);
    };
    const otherAgent = () =>
      givenAgent(world.t.ctx, { name: 'edge-2', capabilities: agentCapabilities(), version: '1.9.0' });

    it('stores secrets sealed to the agent only, shows them as RECORDED, and sends them sealed', async () => {
      const backend = await createOk({ Name: 'fw', AgentID: world.agent.id, Config: { fortios: FORTIOS } });
      expect(backend.Config.fortios?.Bearer).toBe(RECORDED);
      expect(JSON.stringify(backend)).not.toContain(FORTIOS.Bearer);
      const stored = await storedConfig(backend.ID);
      expect(stored.Bearer).toMatch(/^sealed:v1:/);
      expect(JSON.stringify(stored)).not.toContain(FORTIOS.Bearer);
      expect(stored.Url).toBe(FORTIOS.Url);
      // Not a SecretBox value: the server's own key cannot open it, whatever place it is read for.
      expect(() =>
        world.t.ctx.secrets.open(String(stored.Bearer), {
          table: 'backends',
          column: 'config.Bearer',
          rowId: backend.ID,
        }),
      ).toThrow(SecretUnreadableError);
      // Only the agent's key opens it, and only for this backend's field.
      expect(open(agentKey(), stored.Bearer, backend.ID, 'Bearer')).toBe(FORTIOS.Bearer);
      expect(() => open(givenSealingKey(), stored.Bearer, backend.ID, 'Bearer')).toThrow(SealedValueError);
      expect(() => open(agentKey(), stored.Bearer, 'another-backend', 'Bearer')).toThrow(SealedValueError);
      // The agent is sent the sealed value as stored, never the plain text.
      expect(await forAgent(backend.ID)).toMatchObject({ Url: FORTIOS.Url, Bearer: stored.Bearer });
      const listed = (await call('GET', '/api/admin/backends')).body;
      expect(listed).not.toContain(FORTIOS.Bearer);
      expect(listed).not.toContain(String(stored.Bearer));
      expect(
        (await call('GET', `/api/admin/backends/${backend.ID}`)).json<{ data: BackendRecord }>().data.Config,
      ).toMatchObject({ fortios: { Bearer: RECORDED } });
    });

    it('refuses secrets for an agent that registered no sealing key (400 err.agentCannotSeal)', async () => {
      const old = await givenAgent(world.t.ctx, {
        name: 'old-edge',
        capabilities: agentCapabilities(),
        version: '1.9.0',
        sealing: false,
      });
      const response = await call('POST', '/api/admin/backends', {
        Name: 'fw',
        AgentID: old.id,
        Config: { fortios: FORTIOS },
      });
      expect(refusal(response)).toEqual({ status: 400, Err: ErrorCodes.agentCannotSeal, Extra: 'old-edge' });
      // A type without secrets is fine.
      await createOk({
        Name: 'hap',
        AgentID: old.id,
        Config: { haproxy: { Protocol: 'unix', Address: '/run/h.sock' } },
      });
    });

    it.each([
      ['sent back as RECORDED', { Bearer: RECORDED }],
      ['omitted', {}],
      ['sent empty', { Bearer: '' }],
    ])('keeps a stored secret %s', async (_case, secret) => {
      const backend = await createOk({ Name: 'fw', AgentID: world.agent.id, Config: { fortios: FORTIOS } });
      const before = await storedConfig(backend.ID);
      const { Bearer: _bearer, ...rest } = FORTIOS;
      const response = await call('PUT', `/api/admin/backends/${backend.ID}`, {
        ID: backend.ID,
        Name: 'fw renamed',
        AgentID: world.agent.id,
        Config: { fortios: { ...rest, VDOM: 'other', ...secret } },
      });
      expect(response.statusCode, response.body).toBe(200);
      const after = await storedConfig(backend.ID);
      expect(after.Bearer).toBe(before.Bearer);
      expect(after.VDOM).toBe('other');
      expect(open(agentKey(), after.Bearer, backend.ID, 'Bearer')).toBe(FORTIOS.Bearer);
    });

    it('replaces a secret that was re-entered', async () => {
      const backend = await createOk({ Name: 'fw', AgentID: world.agent.id, Config: { fortios: FORTIOS } });
      const response = await call('PUT', `/api/admin/backends/${backend.ID}`, {
        ID: backend.ID,
        Name: 'fw',
        AgentID: world.agent.id,
        Config: { fortios: { ...FORTIOS, Bearer: 'bearer-secret-2' } },
      });
      expect(response.json<{ data: BackendRecord }>().data.Config.fortios?.Bearer).toBe(RECORDED);
      expect(open(agentKey(), (await storedConfig(backend.ID)).Bearer, backend.ID, 'Bearer')).toBe('bearer-secret-2');
    });

    it('refuses a move to another agent unless the secrets are re-entered, then seals them to that agent', async () => {
      const backend = await createOk({ Name: 'fw', AgentID: world.agent.id, Config: { fortios: FORTIOS } });
      const other = await otherAgent();
      const before = await storedConfig(backend.ID);
      const move = (fields: object) =>
        call('PUT', `/api/admin/backends/${backend.ID}`, {
          ID: backend.ID,
          Name: 'fw',
          AgentID: other.id,
          Config: { fortios: { Url: FORTIOS.Url, VDOM: 'root', ...fields } },
        });
      for (const kept of [{ Bearer: RECORDED }, {}, { Bearer: '' }]) {
        expect(refusal(await move(kept))).toEqual({
          status: 400,
          Err: ErrorCodes.reenterSecretsForAgent,
          Extra: 'Bearer',
        });
      }
      const unchanged = await findBackendRow(world.t.ctx.db, backend.ID);
      expect(unchanged?.agentId).toBe(world.agent.id);
      expect(unchanged?.config.Bearer).toBe(before.Bearer);

      expect((await move({ Bearer: 'bearer-for-edge-2' })).statusCode).toBe(200);
      const after = await storedConfig(backend.ID);
      expect(open(other.sealing!, after.Bearer, backend.ID, 'Bearer')).toBe('bearer-for-edge-2');
      expect(() => open(agentKey(), after.Bearer, backend.ID, 'Bearer')).toThrow(SealedValueError);
    });

    it('refuses a changed address unless every secret is re-entered', async () => {
      const backend = await createOk({
        Name: 'pan',
        AgentID: world.agent.id,
        Config: { panos: { Hostname: 'pan-a', ApiKey: 'k1' } },
      });
      const update = (fields: object) =>
        call('PUT', `/api/admin/backends/${backend.ID}`, {
          ID: backend.ID,
          Name: 'pan',
          AgentID: world.agent.id,
          Config: { panos: { Hostname: 'pan-b', ...fields } },
        });
      expect(refusal(await update({ ApiKey: RECORDED }))).toEqual({
        status: 400,
        Err: ErrorCodes.reenterCredentials,
        Extra: 'ApiKey',
      });
      expect(refusal(await update({}))).toMatchObject({ Err: ErrorCodes.reenterCredentials });
      expect((await findBackendRow(world.t.ctx.db, backend.ID))?.config.Hostname).toBe('pan-a');
      expect((await update({ ApiKey: 'k2' })).statusCode).toBe(200);
      const stored = await storedConfig(backend.ID);
      expect(stored.Hostname).toBe('pan-b');
      expect(open(agentKey(), stored.ApiKey, backend.ID, 'ApiKey')).toBe('k2');
    });

    describe('AWS keys left empty (the agent host’s credentials)', () => {
      const KEYS = { AccessKeyId: 'AKIAPOSTERN000001', SecretAccessKey: 'aws-secret-1', Region: 'eu-central-1' };
      const put = (id: string, fields: object, agent = world.agent.id) =>
        call('PUT', `/api/admin/backends/${id}`, { ID: id, Name: 'cloud', AgentID: agent, Config: { aws: fields } });

      it('stores none, shows none, and needs no sealing key', async () => {
        const old = await givenAgent(world.t.ctx, {
          name: 'ec2-edge',
          capabilities: agentCapabilities(),
          version: '1.9.0',
          sealing: false,
        });
        const backend = await createOk({
          Name: 'cloud',
          AgentID: old.id,
          Config: { aws: { AccessKeyId: '', SecretAccessKey: '', Region: KEYS.Region } },
        });
        // Empty, not RECORDED: there is nothing stored to keep.
        expect(backend.Config.aws).toEqual({ AccessKeyId: '', SecretAccessKey: '', Region: KEYS.Region });
        expect(await storedConfig(backend.ID)).toEqual({ AccessKeyId: '', SecretAccessKey: '', Region: KEYS.Region });
        const row = await findBackendRow(world.t.ctx.db, backend.ID);
        expect(loadBackendConfigForAgent(world.t.ctx, row!, null)).toEqual({
          AccessKeyId: '',
          SecretAccessKey: '',
          Region: KEYS.Region,
        });
      });

      it('refuses half a pair on create, naming the missing field', async () => {
        for (const [fields, missing] of [
          [{ AccessKeyId: KEYS.AccessKeyId, Region: KEYS.Region }, 'SecretAccessKey'],
          [{ SecretAccessKey: KEYS.SecretAccessKey, Region: KEYS.Region }, 'AccessKeyId'],
        ] as const) {
          const response = await call('POST', '/api/admin/backends', {
            Name: 'cloud',
            AgentID: world.agent.id,
            Config: { aws: fields },
          });
          expect(refusal(response)).toEqual({
            status: 400,
            Err: ErrorCodes.awsKeysIncomplete,
            Extra: `Config.aws.${missing}`,
          });
        }
      });

      it('drops the stored secret when the key ID is emptied, and wants a new one when it comes back', async () => {
        const backend = await createOk({ Name: 'cloud', AgentID: world.agent.id, Config: { aws: KEYS } });
        expect((await storedConfig(backend.ID)).SecretAccessKey).toMatch(/^sealed:v1:/);
        // The form sends the secret back as RECORDED (or empty) when nobody typed one.
        expect(
          (await put(backend.ID, { AccessKeyId: '', SecretAccessKey: RECORDED, Region: KEYS.Region })).statusCode,
        ).toBe(200);
        expect(await storedConfig(backend.ID)).toEqual({ AccessKeyId: '', SecretAccessKey: '', Region: KEYS.Region });

        expect(
          refusal(
            await put(backend.ID, { AccessKeyId: KEYS.AccessKeyId, SecretAccessKey: RECORDED, Region: KEYS.Region }),
          ),
        ).toEqual({
          status: 400,
          Err: ErrorCodes.awsKeysIncomplete,
          Extra: 'Config.aws.SecretAccessKey',
        });
        expect((await put(backend.ID, KEYS)).statusCode).toBe(200);
        const stored = await storedConfig(backend.ID);
        expect(stored.AccessKeyId).toBe(KEYS.AccessKeyId);
        expect(open(agentKey(), stored.SecretAccessKey, backend.ID, 'SecretAccessKey')).toBe(KEYS.SecretAccessKey);
      });

      it('moves to another agent without re-entering keys it never had, but not with keys', async () => {
        const empty = await createOk({
          Name: 'cloud',
          AgentID: world.agent.id,
          Config: { aws: { Region: KEYS.Region } },
        });
        const other = await otherAgent();
        expect(
          (await put(empty.ID, { AccessKeyId: '', SecretAccessKey: '', Region: KEYS.Region }, other.id)).statusCode,
        ).toBe(200);
        expect((await findBackendRow(world.t.ctx.db, empty.ID))?.agentId).toBe(other.id);

        const keyed = await createOk({ Name: 'cloud keyed', AgentID: world.agent.id, Config: { aws: KEYS } });
        const move = await call('PUT', `/api/admin/backends/${keyed.ID}`, {
          ID: keyed.ID,
          Name: 'cloud keyed',
          AgentID: other.id,
          Config: { aws: { ...KEYS, SecretAccessKey: RECORDED } },
        });
        expect(refusal(move)).toEqual({
          status: 400,
          Err: ErrorCodes.reenterSecretsForAgent,
          Extra: 'SecretAccessKey',
        });
      });
    });
  });
});

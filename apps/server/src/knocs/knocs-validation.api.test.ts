import { beforeEach, describe, expect, it } from 'vitest';
import { ErrorCodes } from '@postern/protocol';
import { type TestApp } from '../test-support/test-app.js';
import { UNKNOWN_ID } from '../test-support/admin-api-world.js';
import { useKnocsApiWorld } from '../test-support/knoc-api-fixtures.js';

// What a knoc body may hold, and the rules the server adds: backends, ipsets and parents.
describe.each(['sqlite'] as const)('knocs API (%s)', (kind) => {
  const world = useKnocsApiWorld(kind);
  const { call, refusal, ipsetKnoc, create, createOk, getOk, update } = world;
  let t: TestApp;
  beforeEach(() => {
    ({ t } = world);
  });

  describe('validation of the body', () => {
    it.each([
      ['Description missing', { Description: undefined }, ErrorCodes.badRequest],
      ['MaximumGrantDuration not whole minutes', { MaximumGrantDuration: 330 }, ErrorCodes.maximumGrantDurationRange],
      ['MaximumGrantDuration under 5 minutes', { MaximumGrantDuration: 240 }, ErrorCodes.maximumGrantDurationRange],
      [
        'MaximumGrantDuration over 40320 minutes',
        { MaximumGrantDuration: 40_321 * 60 },
        ErrorCodes.maximumGrantDurationRange,
      ],
      ['an ipset knoc without a set name', { Config: { ipset: {} } }, ErrorCodes.ipsetNameRequired],
      [
        'a config naming two types',
        { Config: { ipset: { V4SetName: 'a' }, haproxy: { ID: 1 } } },
        ErrorCodes.noBackendSelected,
      ],
      ['an haproxy knoc without an ID', { Config: { haproxy: {} } }, ErrorCodes.aclIdRequired],
      ['an haproxy ID that is no number', { Config: { haproxy: { ID: 'abc' } } }, ErrorCodes.aclIdMustBeNumber],
      ['a knocproxy knoc without a name', { Config: { knocproxy: { Name: '' } } }, ErrorCodes.aclNameRequired],
      [
        'a knocproxy name with a hyphen',
        { Config: { knocproxy: { Name: 'a-b' } } },
        ErrorCodes.invalidKnocproxyAclName,
      ],
      ['a script name with a space', { Config: { script: { Name: 'a b' } } }, ErrorCodes.invalidAclName],
      [
        'repeated variable names',
        {
          Config: {
            script: {
              EnvVars: [
                { Name: 'A', Value: '1' },
                { Name: 'A', Value: '2' },
              ],
            },
          },
        },
        ErrorCodes.repeatedEnvVarNames,
      ],
      [
        'an empty variable name',
        { Config: { script: { EnvVars: [{ Name: '', Value: '1' }] } } },
        ErrorCodes.emptyEnvVarName,
      ],
      [
        '= in a variable name',
        { Config: { script: { EnvVars: [{ Name: 'A=B', Value: '1' }] } } },
        ErrorCodes.invalidEnvVarName,
      ],
      ['an allow list without ranges', { IpExclusions: { RestrictionType: 'allowList' } }, ErrorCodes.ipRangeRequired],
      [
        'a range with one end',
        { IpExclusions: { RestrictionType: 'denyList', Ranges: [{ Start: '10.0.0.1', End: '' }] } },
        ErrorCodes.invalidIpAddress,
      ],
      [
        'a range end with a leading zero',
        { IpExclusions: { RestrictionType: 'denyList', Ranges: [{ Start: '10.0.0.1', End: '10.0.0.01' }] } },
        ErrorCodes.invalidIpAddress,
      ],
      ['fixed IPs without any', { GrantType: { Type: 'specifiedIps', Ips: [] } }, ErrorCodes.invalidIpAddress],
      [
        'a fixed IP that is none',
        { GrantType: { Type: 'specifiedIps', Ips: [{ Ip: '300.1.1.1' }] } },
        ErrorCodes.invalidIpAddress,
      ],
    ])('refuses %s', async (_case, extra, code) => {
      const response = await create(ipsetKnoc(extra));
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json<{ Err: string }>().Err).toBe(code);
    });

    it.each([0, null, 5 * 60, 40_320 * 60])('accepts MaximumGrantDuration %s', async (seconds) => {
      const knoc = await getOk(await createOk(ipsetKnoc({ MaximumGrantDuration: seconds })));
      expect(knoc.MaximumGrantDuration).toBe(seconds ?? 0);
    });
  });

  describe('the knoc URL is checked when saved', () => {
    it.each([
      ['a javascript: URL', 'javascript:alert(1)', ErrorCodes.urlMustBeHttp],
      ['a URL with credentials', 'https://ops:pw@intranet.example.net', ErrorCodes.urlCredentialsNotAllowed],
      ['a URL with a space in its host', 'https://intranet example.net', ErrorCodes.urlInvalid],
      ['a URL without a host', 'https:///path', ErrorCodes.urlInvalid],
    ])('refuses %s on create and on update', async (_case, URL, code) => {
      expect(refusal(await create(ipsetKnoc({ URL })))).toEqual({ status: 400, Err: code, Extra: 'URL' });
      const id = await createOk(ipsetKnoc({ URL: 'https://intranet.example.net' }));
      expect(refusal(await update(id, ipsetKnoc({ URL })))).toEqual({ status: 400, Err: code, Extra: 'URL' });
      expect((await getOk(id)).URL).toBe('https://intranet.example.net');
    });

    it('still reads a knoc whose URL was stored before the rule', async () => {
      const id = await createOk(ipsetKnoc());
      await t.ctx.db.updateTable('knocs').set({ url: 'rdp://jump host' }).where('id', '=', id).execute();
      expect((await getOk(id)).URL).toBe('rdp://jump host');
      expect((await call('GET', '/api/admin/acls')).statusCode).toBe(200);
    });
  });

  describe('rules of the server', () => {
    it('asks for a backend first when none exists (err.createBackendBeforeACL)', async () => {
      await t.ctx.db.deleteFrom('backends').execute();
      const response = await create(ipsetKnoc({ BackendID: UNKNOWN_ID }));
      expect(refusal(response)).toEqual({
        status: 400,
        Err: ErrorCodes.createBackendBeforeACL,
        Extra: 'BackendID',
      });
    });

    it('refuses an unknown backend (err.noBackendSelected)', async () => {
      const response = await create(ipsetKnoc({ BackendID: UNKNOWN_ID }));
      expect(refusal(response)).toEqual({ status: 400, Err: ErrorCodes.noBackendSelected, Extra: 'BackendID' });
    });

    it('refuses a config of another type than the backend (err.aclConfigMismatch)', async () => {
      const response = await create(ipsetKnoc({ Config: { haproxy: { ID: 7 } } }));
      expect(refusal(response)).toEqual({ status: 400, Err: ErrorCodes.aclConfigMismatch, Extra: 'ipset' });
    });

    it.each([
      ['a set the agent did not report', { V4SetName: 'elsewhere' }, 'elsewhere'],
      ['an IPv6 set named as the IPv4 one', { V4SetName: 'postern6' }, 'postern6'],
      ['an IPv4 set named as the IPv6 one', { V4SetName: 'postern4', V6SetName: 'postern4' }, 'postern4'],
    ])('refuses %s (err.ipsetNotAllowed)', async (_case, fields, name) => {
      const response = await create(ipsetKnoc({ Config: { ipset: fields } }));
      expect(refusal(response)).toEqual({ status: 400, Err: ErrorCodes.ipsetNotAllowed, Extra: name });
    });

    it('accepts both sets the agent reported, each for its family', async () => {
      const knoc = await getOk(
        await createOk(ipsetKnoc({ Config: { ipset: { V4SetName: 'postern4', V6SetName: 'postern6' } } })),
      );
      expect(knoc.AclConfig).toEqual({ ipset: { V4SetName: 'postern4', V6SetName: 'postern6' } });
    });

    it("links a child to a top-level parent and lists it among the parent's children", async () => {
      const parent = await createOk(ipsetKnoc({ Description: 'parent' }));
      const child = await createOk(ipsetKnoc({ Description: 'child', ParentID: parent }));
      expect((await getOk(parent)).Children).toEqual([child]);
      expect((await getOk(child)).ParentID).toBe(parent);
      expect((await getOk(await createOk(ipsetKnoc({ ParentID: '' })))).ParentID).toBeNull();
    });

    it.each(['unknown', 'a child itself', 'itself'])(
      'refuses a parent that is %s (err.invalidParent)',
      async (which) => {
        const parent = await createOk(ipsetKnoc({ Description: 'parent' }));
        const child = await createOk(ipsetKnoc({ Description: 'child', ParentID: parent }));
        const response =
          which === 'unknown'
            ? await create(ipsetKnoc({ ParentID: UNKNOWN_ID }))
            : which === 'a child itself'
              ? await create(ipsetKnoc({ ParentID: child }))
              : await update(parent, ipsetKnoc({ ParentID: parent }));
        expect(refusal(response)).toEqual({ status: 400, Err: ErrorCodes.invalidParent, Extra: 'ParentID' });
      },
    );

    it('refuses to make a knoc with children a child (one level only)', async () => {
      const top = await createOk(ipsetKnoc({ Description: 'top' }));
      const parent = await createOk(ipsetKnoc({ Description: 'parent' }));
      await createOk(ipsetKnoc({ Description: 'child', ParentID: parent }));
      const response = await update(parent, ipsetKnoc({ Description: 'parent', ParentID: top }));
      expect(refusal(response)).toEqual({ status: 400, Err: ErrorCodes.invalidParent, Extra: 'ParentID' });
    });
  });
});

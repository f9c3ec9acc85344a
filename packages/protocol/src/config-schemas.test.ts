import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { AgentKnoc, lenientConfig } from './agent-messages.js';
import { BACKEND_CONFIG_SCHEMAS, BACKEND_TYPES, RECORDED, backendFieldsSchema, type BackendType } from './backends.js';
import { ACL_CONFIG_SCHEMAS } from './knocs.js';
import { ErrorCodes } from './errors.js';

interface Example {
  /** Valid fields, as an admin would save them. */
  fields: Record<string, unknown>;
  /** The fields whose absence the save-time schema refuses. */
  required: readonly string[];
}

/**
 * One valid backend config and one valid ACL config per backend type. `satisfies Record<BackendType,
 * …>` makes a new backend type without an example a compile error; the test below fails at run time.
 */
const EXAMPLES = {
  ipset: {
    backend: { fields: {}, required: [] },
    acl: { fields: { V4SetName: 'postern4', V6SetName: 'postern6' }, required: [] },
  },
  nftables: {
    backend: { fields: { Family: 'inet', Table: 'postern' }, required: ['Table'] },
    acl: { fields: { V4SetName: 'postern4', V6SetName: 'postern6' }, required: [] },
  },
  allowlist: {
    backend: { fields: {}, required: [] },
    acl: {
      fields: { Token: 'tok', ApiKeyId: '', AllowAccessByIp: true, AllowedIpAddresses: ['10.0.0.0/8'] },
      required: [],
    },
  },
  haproxy: {
    backend: { fields: { Protocol: 'unix', Address: '/var/run/haproxy.sock' }, required: ['Protocol', 'Address'] },
    acl: { fields: { ID: '3' }, required: ['ID'] },
  },
  knocproxy: {
    backend: { fields: { Protocol: 'tcp', Address: '0.0.0.0:8443' }, required: ['Protocol', 'Address'] },
    acl: { fields: { Name: 'app_one' }, required: ['Name'] },
  },
  script: {
    backend: {
      fields: { Command: 'grant.sh', EnvVars: [{ Name: 'TOKEN', Sensitive: true }] },
      required: ['Command'],
    },
    acl: {
      fields: { Name: 'app', EnvVars: [{ Name: 'TOKEN', Value: 'secret', Sensitive: true, Encrypted: false }] },
      required: [],
    },
  },
  fortios: {
    backend: {
      fields: { Url: 'https://fw.example.com', Insecure: false, Bearer: 'b', Prefix: 'kk_', VDOM: 'root' },
      required: ['Url', 'Bearer'],
    },
    acl: { fields: { Name: 'grp' }, required: ['Name'] },
  },
  fortimanager: {
    backend: { fields: { Hostname: 'fmg.example.com', Insecure: true, ApiKey: 'k' }, required: ['Hostname', 'ApiKey'] },
    acl: { fields: { Name: 'grp' }, required: [] },
  },
  panos: {
    backend: {
      fields: {
        Hostname: 'pa.example.com:8443',
        Insecure: false,
        ApiKey: 'k',
        VSys: 'vsys1',
        DeviceGroup: '',
        MapUser: false,
      },
      required: ['Hostname', 'ApiKey'],
    },
    acl: { fields: { GroupName: 'grp', EDLName: '', MapUser: false, SerialNumber: '' }, required: [] },
  },
  firepower: {
    backend: {
      fields: {
        Hostname: '192.0.2.10',
        Insecure: false,
        Username: 'api',
        Password: 'p',
        Domain: 'Global/Branch',
        Deploy: 'onlyWhenOnlyPostern',
      },
      required: ['Hostname', 'Username', 'Password'],
    },
    acl: { fields: { GroupUUID: '0050568a-1234' }, required: ['GroupUUID'] },
  },
  sophosutm: {
    backend: {
      fields: { Hostname: 'utm.example.com', Insecure: false, ApiKey: 'k' },
      required: ['Hostname', 'ApiKey'],
    },
    acl: { fields: { GroupReference: 'REF_NetGroPostern' }, required: ['GroupReference'] },
  },
  sophossfos: {
    backend: {
      fields: { Hostname: 'sfos.example.com', Insecure: false, Username: 'api', Password: 'p' },
      required: ['Hostname', 'Username', 'Password'],
    },
    acl: { fields: { GroupName: 'grp4', GroupNameV6: 'grp6' }, required: ['GroupName'] },
  },
  aws: {
    backend: {
      fields: { AccessKeyId: 'AKIA', SecretAccessKey: 's', Region: 'eu-west-1' },
      required: ['AccessKeyId', 'SecretAccessKey', 'Region'],
    },
    acl: { fields: { SecurityGroupId: 'sg-123', Port: 22 }, required: ['SecurityGroupId'] },
  },
  azure: {
    backend: {
      fields: { ClientId: 'c', ClientSecret: 's', TenantId: 't', NoCache: false },
      required: ['ClientId', 'ClientSecret', 'TenantId'],
    },
    acl: {
      fields: { NsgDirection: 'Inbound', NsgName: 'nsg', NsgPort: 443, ResourceGroup: 'rg' },
      required: ['NsgDirection', 'NsgName', 'ResourceGroup'],
    },
  },
} as const satisfies Record<BackendType, { backend: Example; acl: Example }>;

const without = (fields: Record<string, unknown>, key: string) =>
  Object.fromEntries(Object.entries(fields).filter(([name]) => name !== key));

const cases = BACKEND_TYPES.flatMap((type) => [
  {
    type,
    part: 'backend' as const,
    schema: BACKEND_CONFIG_SCHEMAS[type] as z.ZodObject,
    example: EXAMPLES[type].backend,
  },
  { type, part: 'acl' as const, schema: ACL_CONFIG_SCHEMAS[type] as z.ZodObject, example: EXAMPLES[type].acl },
]);

describe('per-type config schemas', () => {
  it('has an example for every backend type, and only for those', () => {
    expect(Object.keys(EXAMPLES).sort()).toEqual([...BACKEND_TYPES].sort());
    expect(Object.keys(BACKEND_CONFIG_SCHEMAS).sort()).toEqual([...BACKEND_TYPES].sort());
    expect(Object.keys(ACL_CONFIG_SCHEMAS).sort()).toEqual([...BACKEND_TYPES].sort());
  });

  describe.each(cases)('$type $part config', ({ schema, example }) => {
    it('parses the example', () => {
      const parsed = schema.safeParse(example.fields);
      expect(parsed.error?.issues).toBeUndefined();
    });

    it('names exactly the required fields', () => {
      const required = Object.keys(schema.shape).filter(
        (key) => !schema.safeParse(without(example.fields, key)).success,
      );
      expect(required.sort()).toEqual([...example.required].sort());
    });

    it.each(example.required.map((key) => ({ key })))('refuses the example without $key', ({ key }) => {
      const parsed = schema.safeParse(without(example.fields, key));
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues.some((issue) => issue.path[0] === key || issue.path.length === 0)).toBe(true);
    });

    it('has an agent-side lenient variant that accepts the example as sent, and nothing at all', () => {
      const lenient = lenientConfig(schema);
      expect(lenient.parse(example.fields)).toEqual(example.fields);
      expect(lenient.parse({})).toEqual({});
    });
  });
});

describe('AgentKnoc', () => {
  const base = { aclId: 'a1', name: 'Knoc', url: 'https://app.example.com', backendId: 'b1' };

  it.each(BACKEND_TYPES.map((type) => ({ type })))('accepts a $type knoc with the example configs', ({ type }) => {
    const knoc = { ...base, backendType: type, backend: EXAMPLES[type].backend.fields, acl: EXAMPLES[type].acl.fields };
    expect(AgentKnoc.parse(knoc)).toEqual(knoc);
  });

  it('ignores the save-time rules: what an older server stored still arrives', () => {
    const haproxy = { ...base, backendType: 'haproxy', backend: { Protocol: 'unix', Address: '' }, acl: { ID: 12 } };
    expect(AgentKnoc.parse(haproxy)).toEqual(haproxy);
    const knocproxy = { ...base, backendType: 'knocproxy', backend: {}, acl: { Name: 'has-dash' } };
    expect(AgentKnoc.parse(knocproxy)).toEqual(knocproxy);
    const fortios = { ...base, backendType: 'fortios', backend: { Url: 'not a url', Bearer: 'b' }, acl: { Name: '' } };
    expect(AgentKnoc.parse(fortios)).toEqual(fortios);
    const ipset = { ...base, backendType: 'ipset', backend: {}, acl: {} };
    expect(AgentKnoc.parse(ipset)).toEqual(ipset);
  });

  it('still refuses a field of the wrong type and an unknown backend type', () => {
    expect(AgentKnoc.safeParse({ ...base, backendType: 'ipset', backend: {}, acl: { V4SetName: 4 } }).success).toBe(
      false,
    );
    expect(AgentKnoc.safeParse({ ...base, backendType: 'nope', backend: {}, acl: {} }).success).toBe(false);
  });
});

describe('AWS keys', () => {
  const aws = (fields: Record<string, unknown>) => ({ Region: 'eu-central-1', ...fields });
  const issuesOf = (schema: z.ZodType, fields: Record<string, unknown>) =>
    schema.safeParse(aws(fields)).error?.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`) ?? [];

  it('may both be left empty or out (the agent then uses its host credentials)', () => {
    expect(BACKEND_CONFIG_SCHEMAS.aws.parse(aws({}))).toEqual(aws({ AccessKeyId: '', SecretAccessKey: '' }));
    expect(issuesOf(BACKEND_CONFIG_SCHEMAS.aws, { AccessKeyId: ' ', SecretAccessKey: '' })).toEqual([]);
  });

  it('come as a pair on create: the missing one is named', () => {
    const create = backendFieldsSchema('aws', 'create');
    expect(issuesOf(create, { AccessKeyId: 'AKIA1' })).toEqual(['SecretAccessKey err.awsKeysIncomplete']);
    expect(issuesOf(create, { SecretAccessKey: 's3cret' })).toEqual(['AccessKeyId err.awsKeysIncomplete']);
    expect(issuesOf(create, { AccessKeyId: 'AKIA1', SecretAccessKey: 's3cret' })).toEqual([]);
  });

  it('on update accept a kept secret with a key ID, but not a new secret without one', () => {
    const update = backendFieldsSchema('aws', 'update');
    for (const kept of [{}, { SecretAccessKey: '' }, { SecretAccessKey: RECORDED }]) {
      expect(issuesOf(update, { AccessKeyId: 'AKIA1', ...kept })).toEqual([]);
      // No key ID: the stored secret is dropped, which is no issue either.
      expect(issuesOf(update, { AccessKeyId: '', ...kept })).toEqual([]);
    }
    expect(issuesOf(update, { AccessKeyId: '', SecretAccessKey: 'new' })).toEqual([
      'AccessKeyId err.awsKeysIncomplete',
    ]);
  });
});

describe('Cisco FMC (firepower) backend', () => {
  const base = { Hostname: 'fmc.example.com', Username: 'api', Password: 'p' };

  it('defaults to the login domain and automatic deployment', () => {
    expect(BACKEND_CONFIG_SCHEMAS.firepower.parse(base)).toMatchObject({ Domain: '', Deploy: 'automatic' });
  });

  it.each(['automatic', 'onlyWhenOnlyPostern', 'manual'])('accepts Deploy %s', (Deploy) => {
    expect(BACKEND_CONFIG_SCHEMAS.firepower.parse({ ...base, Deploy }).Deploy).toBe(Deploy);
  });

  it('refuses an unknown Deploy mode', () => {
    expect(BACKEND_CONFIG_SCHEMAS.firepower.safeParse({ ...base, Deploy: 'always' }).success).toBe(false);
  });
});

describe('nftables and the managed rule', () => {
  const nftables = BACKEND_CONFIG_SCHEMAS.nftables;

  it('defaults the family to inet and refuses a table name nft would need quoted', () => {
    expect(nftables.parse({ Table: 'postern' })).toEqual({ Family: 'inet', Table: 'postern' });
    for (const Table of ['', '1st', 'my table', 'a"b', 'x'.repeat(65)]) {
      expect(nftables.safeParse({ Table }).error?.issues[0]?.message, Table).toBe(ErrorCodes.nftablesInvalidName);
    }
  });

  it('refuses a knoc set name nft would need quoted, and a knoc with neither set', () => {
    const acl = ACL_CONFIG_SCHEMAS.nftables;
    expect(acl.parse({ V6SetName: 'knoc_v6' })).toEqual({ V4SetName: '', V6SetName: 'knoc_v6' });
    expect(acl.safeParse({ V4SetName: 'a b' }).error?.issues[0]?.message).toBe(ErrorCodes.nftablesInvalidName);
    expect(acl.safeParse({}).error?.issues[0]?.message).toBe(ErrorCodes.ipsetNameRequired);
  });

  it('takes a managed rule on ipset and nftables backends: a chain and one to 32 TCP ports', () => {
    const rule = { Chain: 'INPUT', Ports: [22, 443] };
    expect(BACKEND_CONFIG_SCHEMAS.ipset.parse({ ManagedRule: rule })).toEqual({ ManagedRule: rule });
    expect(nftables.parse({ Table: 't', ManagedRule: rule })).toMatchObject({ ManagedRule: rule });
    expect(BACKEND_CONFIG_SCHEMAS.ipset.parse({})).toEqual({});
    const refused = (ManagedRule: unknown) =>
      BACKEND_CONFIG_SCHEMAS.ipset.safeParse({ ManagedRule }).error?.issues[0]?.message;
    expect(refused({ Chain: 'INPUT', Ports: [] })).toBe(ErrorCodes.managedRulePortsRequired);
    expect(refused({ Chain: '-j ACCEPT', Ports: [22] })).toBe(ErrorCodes.managedRuleInvalidChain);
    expect(refused({ Chain: 'INPUT', Ports: [0] })).toBeDefined();
    expect(refused({ Chain: 'INPUT', Ports: Array.from({ length: 33 }, (_, index) => index + 1) })).toBeDefined();
  });
});

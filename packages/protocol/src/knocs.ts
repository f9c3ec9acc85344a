import { z } from 'zod';
import { dataEnvelope } from './envelope.js';
import { ErrorCodes } from './errors.js';
import { oneOfTypes } from './one-of-types.js';
import { Cidr, emptyOr, HttpUrl, Id, RequiredName, isIpv4, isIpv6 } from './common.js';
import { DEFAULT_ACL_CATEGORY, MAX_GRANT_MINUTES_MAX, MAX_GRANT_MINUTES_MIN } from './limits.js';
import { AllowedFromEntry } from './api-keys.js';
import { BackendConfig, BackendConfigUpdate, BackendType, NFTABLES_NAME_PATTERN } from './backends.js';

export const DEFAULT_ICON = 'server';

const IpAddress = z
  .string()
  .trim()
  .refine((value) => isIpv4(value) || isIpv6(value), ErrorCodes.invalidIpAddress);

/** A range: both ends empty (ignored) or both valid IPv4 with Start ≤ End. */
export const IpRange = z
  .object({ Start: z.string().trim().default(''), End: z.string().trim().default('') })
  .superRefine((range, ctx) => {
    if (range.Start === '' && range.End === '') return;
    for (const key of ['Start', 'End'] as const) {
      if (!isIpv4(range[key])) ctx.addIssue({ code: 'custom', path: [key], message: ErrorCodes.invalidIpAddress });
    }
  });
export type IpRange = z.infer<typeof IpRange>;

/** The three private ranges the RFC1918 restriction fills in (read-only in the form). */
export const RFC1918_RANGES: readonly IpRange[] = [
  { Start: '10.0.0.0', End: '10.255.255.255' },
  { Start: '172.16.0.0', End: '172.31.255.255' },
  { Start: '192.168.0.0', End: '192.168.255.255' },
];

export const RESTRICTION_TYPES = ['none', 'RFC1918', 'allowList', 'denyList'] as const;

/**
 * Which user addresses may use the knoc. none: all. RFC1918 with RfcType allow: only private
 * addresses; deny: all but private ones. allowList: only addresses in Ranges; denyList: all but them.
 * A user outside sees the knoc with DisableForUser.
 */
export const IpExclusions = z
  .object({
    RestrictionType: z.enum(RESTRICTION_TYPES).default('none'),
    RfcType: z.enum(['allow', 'deny']).default('allow'),
    Ranges: z.array(IpRange).max(1000).default([]),
  })
  .superRefine((value, ctx) => {
    const filled = value.Ranges.filter((range) => range.Start !== '');
    if ((value.RestrictionType === 'allowList' || value.RestrictionType === 'denyList') && filled.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['Ranges'], message: ErrorCodes.ipRangeRequired });
    }
  });
export type IpExclusions = z.infer<typeof IpExclusions>;
export const NO_IP_EXCLUSIONS: IpExclusions = { RestrictionType: 'none', RfcType: 'allow', Ranges: [] };

/** userIp: the caller's address. specifiedIps: these fixed addresses, whoever grants. */
export const GrantType = z
  .object({
    Type: z.enum(['userIp', 'specifiedIps']).default('userIp'),
    Ips: z
      .array(z.object({ Ip: IpAddress }))
      .max(256)
      .default([]),
  })
  .superRefine((value, ctx) => {
    if (value.Type === 'specifiedIps' && value.Ips.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['Ips'], message: ErrorCodes.invalidIpAddress });
    }
  });
export type GrantType = z.infer<typeof GrantType>;
export const USER_IP_GRANT: GrantType = { Type: 'userIp', Ips: [] };

/** A script variable's value on a knoc. Sensitive values are stored encrypted and read back RECORDED. */
export const KnocEnvVar = z.object({
  Name: z
    .string()
    .trim()
    .min(1, ErrorCodes.emptyEnvVarName)
    .max(128)
    .refine((name) => !name.includes('='), ErrorCodes.invalidEnvVarName),
  /** Empty with Encrypted true keeps the stored value. */
  Value: z.string().max(4096).default(''),
  Sensitive: z.boolean().default(false),
  /** Read back: a value is stored encrypted (and Value is RECORDED). */
  Encrypted: z.boolean().default(false),
});
export type KnocEnvVar = z.infer<typeof KnocEnvVar>;

const required = (message: string) => z.string({ error: message }).trim().min(1, message).max(256);

/** The ACL config fields of each backend type, by the spec's table. */
export const ACL_CONFIG_SCHEMAS = {
  ipset: z
    .object({
      V4SetName: z.string().trim().max(31).default(''),
      V6SetName: z.string().trim().max(31).default(''),
    })
    .refine((value) => value.V4SetName !== '' || value.V6SetName !== '', ErrorCodes.ipsetNameRequired),
  /** Sets of type ipv4_addr and ipv6_addr with `flags timeout` in the backend's table. */
  nftables: z
    .object({
      V4SetName: z.string().trim().max(64).default(''),
      V6SetName: z.string().trim().max(64).default(''),
    })
    .refine((value) => value.V4SetName !== '' || value.V6SetName !== '', ErrorCodes.ipsetNameRequired)
    .refine(
      (value) => [value.V4SetName, value.V6SetName].every((name) => name === '' || NFTABLES_NAME_PATTERN.test(name)),
      ErrorCodes.nftablesInvalidName,
    ),
  allowlist: z.object({
    /** The unguessable path part of the published file; the server makes it. */
    Token: z.string().default(''),
    /** The API key whose `allowlist.read:{aclId}` scope reads the list; '' when access is by IP. */
    ApiKeyId: z.string().default(''),
    AllowAccessByIp: z.boolean().default(false),
    /** CIDRs that may fetch the list without a key when AllowAccessByIp. */
    AllowedIpAddresses: z.array(Cidr).max(256).default([]),
  }),
  haproxy: z.object({
    ID: z
      .union([z.string(), z.number()], { error: ErrorCodes.aclIdRequired })
      .transform(String)
      .pipe(
        z
          .string()
          .trim()
          .min(1, ErrorCodes.aclIdRequired)
          .regex(/^\d{1,9}$/, ErrorCodes.aclIdMustBeNumber),
      ),
  }),
  knocproxy: z.object({
    Name: required(ErrorCodes.aclNameRequired).regex(/^[A-Za-z0-9_]+$/, ErrorCodes.invalidKnocproxyAclName),
  }),
  script: z.object({
    Name: z
      .string()
      .trim()
      .max(128)
      .regex(/^[A-Za-z0-9_-]*$/, ErrorCodes.invalidAclName)
      .default(''),
    EnvVars: z
      .array(KnocEnvVar)
      .max(100)
      .default([])
      .refine((vars) => new Set(vars.map((v) => v.Name)).size === vars.length, ErrorCodes.repeatedEnvVarNames),
  }),
  fortios: z.object({ Name: required(ErrorCodes.aclNameRequired) }),
  fortimanager: z.object({ Name: z.string().trim().max(256).default('') }),
  panos: z.object({
    GroupName: z.string().trim().max(256).default(''),
    EDLName: z.string().trim().max(256).default(''),
    MapUser: z.boolean().default(false),
    SerialNumber: z.string().trim().max(64).default(''),
  }),
  firepower: z.object({ GroupUUID: required(ErrorCodes.aclIdRequired) }),
  sophosutm: z.object({ GroupReference: required(ErrorCodes.aclIdRequired) }),
  sophossfos: z.object({
    GroupName: required(ErrorCodes.aclNameRequired),
    GroupNameV6: z.string().trim().max(256).default(''),
  }),
  azure: z.object({
    NsgDirection: z.enum(['Inbound', 'Outbound']),
    NsgName: required(ErrorCodes.aclNameRequired),
    NsgPort: z.coerce.number().int().min(1).max(65535).default(443),
    ResourceGroup: required(ErrorCodes.aclNameRequired),
  }),
  aws: z.object({
    SecurityGroupId: required(ErrorCodes.aclIdRequired),
    Port: z.coerce.number().int().min(1).max(65535).default(22),
  }),
} as const satisfies Record<BackendType, z.ZodType>;

/**
 * A knoc's Config: one key naming its backend's type (it must match the backend), plus the
 * server-made UriToken read back for auto-browse. Parsing returns `{ type, fields }`.
 */
export const AclConfig = oneOfTypes(
  BackendType,
  (type) => ACL_CONFIG_SCHEMAS[type],
  ErrorCodes.noBackendSelected,
  ['UriToken'],
  { fortios: ErrorCodes.invalidFortinetConfig },
);
export type AclConfig = z.output<typeof AclConfig>;

/**
 * MaximumGrantDuration on the wire: seconds, a whole number of minutes from 5 to 40320, or 0 (or
 * null) for none, in which case the session's end is the only limit.
 */
export const MaximumGrantDuration = z
  .union([z.number(), z.null()])
  .transform((value) => value ?? 0)
  .pipe(
    z
      .number()
      .int()
      .refine(
        (seconds) =>
          seconds === 0 ||
          (seconds % 60 === 0 && seconds >= MAX_GRANT_MINUTES_MIN * 60 && seconds <= MAX_GRANT_MINUTES_MAX * 60),
        ErrorCodes.maximumGrantDurationRange,
      ),
  );

/** Knoc options and descriptive fields shared by create, update and the wizard. */
export const knocFields = {
  Description: RequiredName,
  /**
   * The address users open from the dashboard (and knocproxy's upstream): '' or an http(s) URL with a
   * host and no credentials (see adminUrl). Stored knocs are read as they are; this rule is for writes.
   */
  URL: emptyOr(HttpUrl).default(''),
  Category: z
    .string()
    .trim()
    .max(200)
    .default(DEFAULT_ACL_CATEGORY)
    .transform((c) => (c === '' ? DEFAULT_ACL_CATEGORY : c)),
  Icon: z
    .string()
    .trim()
    .max(200)
    .default(DEFAULT_ICON)
    .transform((i) => (i === '' ? DEFAULT_ICON : i)),
  ClickToGrant: z.boolean().default(true),
  CGNATOpen: z.boolean().default(false),
  HideFromUsers: z.boolean().default(false),
  HideFromAdmins: z.boolean().default(false),
  AutoBrowseUsers: z.boolean().default(false),
  MaximumGrantDuration: MaximumGrantDuration.default(0),
  IpExclusions: IpExclusions.default(NO_IP_EXCLUSIONS),
  GrantType: GrantType.default(USER_IP_GRANT),
  /** A passive+ child points at its parent; null or '' for none. */
  ParentID: z
    .union([Id, z.literal('')])
    .nullable()
    .optional(),
};

/** POST /api/admin/acls: one knoc on an existing backend. */
export const KnocCreateBody = z.object({ ...knocFields, BackendID: Id, Config: AclConfig });
export type KnocCreateBody = z.infer<typeof KnocCreateBody>;

/** PUT /api/admin/acls/{id}. The spec's update payload may carry Name; Description wins. */
export const KnocUpdateBody = z.object({ ...knocFields, ID: Id, BackendID: Id, Config: AclConfig });
export type KnocUpdateBody = z.infer<typeof KnocUpdateBody>;

export const KnocRecord = z.object({
  ID: Id,
  Name: z.string(),
  Description: z.string(),
  ParentID: z.string().nullable(),
  Children: z.array(Id),
  HideFromAdmins: z.boolean(),
  HideFromUsers: z.boolean(),
  URL: z.string(),
  Category: z.string(),
  Icon: z.string(),
  ClickToGrant: z.boolean(),
  CGNATOpen: z.boolean(),
  /** Seconds; 0 for none. */
  MaximumGrantDuration: z.number().int(),
  BackendID: Id,
  BackendName: z.string(),
  BackendType: BackendType,
  /** NO_AGENT_ID when the backend has no agent. */
  AgentID: Id,
  AgentName: z.string(),
  AutoBrowseUsers: z.boolean(),
  UserCount: z.number().int(),
  GroupCount: z.number().int(),
  UserIDs: z.array(Id),
  GroupIDs: z.array(Id),
  LastModifiedAt: z.string(),
  LastModifiedBy: z.string(),
  IpExclusions: z.object({
    RestrictionType: z.enum(RESTRICTION_TYPES),
    RfcType: z.enum(['allow', 'deny']),
    Ranges: z.array(z.object({ Start: z.string(), End: z.string() })),
  }),
  GrantType: z.object({ Type: z.enum(['userIp', 'specifiedIps']), Ips: z.array(z.object({ Ip: z.string() })) }),
  /** `{ <type>: { …fields }, UriToken }`, sensitive variable values as RECORDED. */
  Config: z.record(z.string(), z.unknown()),
  AclConfig: z.record(z.string(), z.unknown()),
  /** The backend's config with secrets as RECORDED. */
  BackendConfig: z.record(z.string(), z.record(z.string(), z.unknown())),
});
export type KnocRecord = z.infer<typeof KnocRecord>;
export const KnocResponse = dataEnvelope(KnocRecord);
export const KnocListResponse = dataEnvelope(z.array(KnocRecord));
/** POST /api/admin/acls answers with the new id. */
export const KnocCreatedResponse = dataEnvelope(z.object({ ID: Id }));

/** The wizard's API key choice for an allowlist knoc. */
export const WizardApiKey = z.discriminatedUnion('Option', [
  z.object({ Option: z.literal('none') }),
  z.object({
    Option: z.literal('new'),
    Name: RequiredName,
    AllowedFrom: z.array(AllowedFromEntry).default([]),
    /** ISO expiry; omitted: never expires. */
    ExpiredAfter: z.iso.datetime({ offset: true }).optional(),
  }),
  z.object({ Option: z.literal('existing'), ID: Id }),
]);
export type WizardApiKey = z.infer<typeof WizardApiKey>;

/**
 * POST /api/admin/knocs: the spec's whole creation sequence in one transaction — backend, optional
 * API key, knoc, for passive+ a second backend and a hidden child knoc, then the memberships.
 */
export const KnocWizardCreateBody = z.object({
  Backend: z.object({ Name: RequiredName, AgentID: Id.nullable().optional(), Config: BackendConfig }),
  ApiKey: WizardApiKey.default({ Option: 'none' }),
  Knoc: z.object({ ...knocFields, Config: AclConfig }),
  /** passive+: the agent-driven backend that tells the firewall to refresh, and its knoc config. */
  PassivePlus: z
    .object({
      Backend: z.object({ Name: RequiredName, AgentID: Id.nullable().optional(), Config: BackendConfig }),
      Config: AclConfig,
    })
    .optional(),
  UserIDs: z.array(Id).default([]),
  GroupIDs: z.array(Id).default([]),
});
export type KnocWizardCreateBody = z.infer<typeof KnocWizardCreateBody>;

export const KnocWizardCreateResponse = dataEnvelope(
  z.object({
    KnocID: Id,
    /** The created key with its plaintext, shown once; null when none was created. */
    ApiKey: z.object({ ID: Id, Name: z.string(), PlaintextKey: z.string() }).nullable(),
    /** The allowlist address when the knoc publishes one. */
    AllowlistURL: z.string().nullable(),
    Knoc: KnocRecord,
  }),
);

/**
 * PUT /api/admin/knocs/{id}: the update twin, in the spec's order — backend, knoc (the parent first
 * when the knoc has one), then memberships (on the parent's id when there is one).
 */
export const KnocWizardUpdateBody = z.object({
  Backend: z.object({ ID: Id, Name: RequiredName, AgentID: Id.nullable().optional(), Config: BackendConfigUpdate }),
  Knoc: z.object({ ...knocFields, ID: Id, Config: AclConfig }),
  UserIDs: z.array(Id).default([]),
  GroupIDs: z.array(Id).default([]),
});
export type KnocWizardUpdateBody = z.infer<typeof KnocWizardUpdateBody>;

import type { ACL_CONFIG_SCHEMAS, BackendType } from '@postern/protocol';
import type { ConfigFieldDescriptor, ConfigFieldEntry, FieldsOf } from './backend-fields';

const required = (kind: ConfigFieldDescriptor['kind'] = 'text'): ConfigFieldDescriptor => ({ kind, required: true });
const optional: ConfigFieldDescriptor = { kind: 'text' };
const port: ConfigFieldDescriptor = { kind: 'number', required: true };

/** The knoc (ACL) config fields of each backend type, in form order (spec §3 table). */
export const ACL_FIELDS = {
  // At least one of the two (err.ipsetNameRequired), so neither is marked required on its own.
  ipset: {
    V4SetName: { kind: 'ipsetName', family: 'inet' },
    V6SetName: { kind: 'ipsetName', family: 'inet6' },
  },
  // Likewise one of the two; offered from the sets the agent reported in the backend's table.
  nftables: {
    V4SetName: { kind: 'nftablesSetName', setType: 'ipv4_addr' },
    V6SetName: { kind: 'nftablesSetName', setType: 'ipv6_addr' },
  },
  // The token is the server's; access by key or by IP is the wizard's API key step.
  allowlist: {
    Token: { kind: 'managedElsewhere' },
    ApiKeyId: { kind: 'managedElsewhere' },
    AllowAccessByIp: { kind: 'managedElsewhere' },
    AllowedIpAddresses: { kind: 'managedElsewhere' },
  },
  haproxy: { ID: { kind: 'text', required: true, numeric: true, placeholder: '1' } },
  knocproxy: { Name: required() },
  script: { Name: optional, EnvVars: { kind: 'envVarValues' } },
  fortios: { Name: required() },
  fortimanager: { Name: optional },
  panos: {
    GroupName: optional,
    EDLName: optional,
    MapUser: { kind: 'checkbox' },
    SerialNumber: optional,
  },
  firepower: { GroupUUID: required() },
  sophosutm: { GroupReference: required() },
  sophossfos: { GroupName: required(), GroupNameV6: optional },
  azure: {
    NsgDirection: { kind: 'select', required: true, options: ['Inbound', 'Outbound'] },
    NsgName: required(),
    NsgPort: port,
    ResourceGroup: required(),
  },
  aws: { SecurityGroupId: required(), Port: port },
} as const satisfies { readonly [Type in BackendType]: FieldsOf<(typeof ACL_CONFIG_SCHEMAS)[Type]> };

/** The knoc config fields of a type an admin enters in a config form, in form order. */
export function aclFieldEntries(type: BackendType): ConfigFieldEntry[] {
  return Object.entries<ConfigFieldDescriptor>(ACL_FIELDS[type]).filter(
    ([, descriptor]) => descriptor.kind !== 'managedElsewhere',
  );
}

/** The text key of a knoc config field's label. */
export function aclFieldLabelKey(type: BackendType, field: string): string {
  return `backendsScreen.aclFields.${type}.${field}`;
}

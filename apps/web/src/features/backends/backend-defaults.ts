import { HAPROXY_DEFAULT_TCP_PORT, HAPROXY_DEFAULT_UNIX_SOCKET, type BackendType } from '@postern/protocol';

/** What the socket defaults depend on: the chosen agent's reported HAProxy socket and a host address. */
export interface SocketDefaultsContext {
  /** The agent's `haproxy.socket_location` ('' or null: none reported). */
  agentSocket?: string | null;
  /** The host of the tcp default `{ip}:9999` (default 127.0.0.1, the agent's own host). */
  hostIp?: string;
}

export type SocketProtocol = 'unix' | 'tcp';

/** A type whose backend config is a Protocol and an Address. */
export function isSocketType(type: BackendType): type is 'haproxy' | 'knocproxy' {
  return type === 'haproxy' || type === 'knocproxy';
}

/**
 * The spec's Address default: unix `/var/run/haproxy.sock` or, for HAProxy, the socket the agent
 * reported; tcp `{ip}:9999`. knocproxy listens where the agent runs it, not on HAProxy's socket.
 */
export function defaultSocketAddress(
  type: 'haproxy' | 'knocproxy',
  protocol: SocketProtocol,
  context: SocketDefaultsContext = {},
): string {
  if (protocol === 'tcp') return `${context.hostIp ?? '127.0.0.1'}:${HAPROXY_DEFAULT_TCP_PORT}`;
  const reported = type === 'haproxy' ? (context.agentSocket ?? '').trim() : '';
  return reported === '' ? HAPROXY_DEFAULT_UNIX_SOCKET : reported;
}

/**
 * The Address after the protocol or the agent changed: the new default, unless the admin customised
 * the old one (it is kept). An empty Address counts as not customised.
 */
export function addressAfterChange(
  type: 'haproxy' | 'knocproxy',
  address: string,
  before: { protocol: SocketProtocol; context: SocketDefaultsContext },
  after: { protocol: SocketProtocol; context: SocketDefaultsContext },
): string {
  const customised = address.trim() !== '' && address !== defaultSocketAddress(type, before.protocol, before.context);
  return customised ? address : defaultSocketAddress(type, after.protocol, after.context);
}

/** A new backend's config form values of this type, with the spec's defaults (§9). */
export function defaultBackendConfig(type: BackendType, context: SocketDefaultsContext = {}): Record<string, unknown> {
  switch (type) {
    // ManagedRule is off (absent) until the admin switches it on.
    case 'ipset':
      return { ManagedRule: undefined };
    case 'nftables':
      return { Family: 'inet', Table: '', ManagedRule: undefined };
    case 'allowlist':
      return {};
    case 'haproxy':
    case 'knocproxy':
      return { Protocol: 'unix', Address: defaultSocketAddress(type, 'unix', context) };
    case 'script':
      return { Command: '', WebhookSecret: '', EnvVars: [] };
    case 'fortios':
      return { Url: '', Insecure: false, Bearer: '', Prefix: 'kk_', VDOM: '' };
    case 'fortimanager':
    case 'sophosutm':
      return { Hostname: '', Insecure: false, ApiKey: '' };
    case 'panos':
      return { Hostname: '', Insecure: false, ApiKey: '', VSys: 'vsys1', DeviceGroup: '', MapUser: false };
    case 'firepower':
      return { Hostname: '', Insecure: false, Username: '', Password: '', Domain: '', Deploy: 'automatic' };
    case 'sophossfos':
      return { Hostname: '', Insecure: false, Username: '', Password: '' };
    case 'aws':
      return { AccessKeyId: '', SecretAccessKey: '', Region: '' };
    case 'azure':
      return { ClientId: '', ClientSecret: '', TenantId: '', NoCache: false };
  }
}

/** A new knoc's config form values of this type, with the spec's defaults (NsgPort 443, Port 22). */
export function defaultAclConfig(type: BackendType): Record<string, unknown> {
  switch (type) {
    case 'ipset':
    case 'nftables':
      return { V4SetName: '', V6SetName: '' };
    case 'allowlist':
      return { Token: '', ApiKeyId: '', AllowAccessByIp: false, AllowedIpAddresses: [] };
    case 'haproxy':
      return { ID: '' };
    case 'knocproxy':
    case 'fortios':
    case 'fortimanager':
      return { Name: '' };
    case 'script':
      return { Name: '', EnvVars: [] };
    case 'panos':
      return { GroupName: '', EDLName: '', MapUser: false, SerialNumber: '' };
    case 'firepower':
      return { GroupUUID: '' };
    case 'sophosutm':
      return { GroupReference: '' };
    case 'sophossfos':
      return { GroupName: '', GroupNameV6: '' };
    case 'azure':
      return { NsgDirection: 'Inbound', NsgName: '', NsgPort: 443, ResourceGroup: '' };
    case 'aws':
      return { SecurityGroupId: '', Port: 22 };
  }
}

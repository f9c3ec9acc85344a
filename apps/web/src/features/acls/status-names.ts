import { GrantStatus } from '@postern/protocol';

/** The translation key naming each grant status code (spec §4), as the older home's table shows it. */
const STATUS_NAME_KEY: Record<number, string> = {
  [GrantStatus.Granted]: 'acl.status.granted',
  [GrantStatus.GrantError]: 'acl.status.grantError',
  [GrantStatus.Pending]: 'acl.status.pending',
  [GrantStatus.AgentOffline]: 'acl.status.agentOffline',
  [GrantStatus.Created]: 'acl.status.created',
  [GrantStatus.Read]: 'acl.status.read',
  [GrantStatus.Published]: 'acl.status.published',
  [GrantStatus.Revoking]: 'acl.status.revoking',
  [GrantStatus.Revoked]: 'acl.status.revoked',
  [GrantStatus.RevokeError]: 'acl.status.revokeError',
};

/** The key of the status's name; an unknown code reads as an error. */
export function statusNameKey(status: number): string {
  return STATUS_NAME_KEY[status] ?? 'acl.status.grantError';
}

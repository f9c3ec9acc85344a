import type { TFunction } from 'i18next';
import type { KnocRecord } from '@postern/protocol';

/** A stored field as text: strings and numbers as they are, anything else as nothing. */
function textOf(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
}

/** The texts of a record's fields, non-empty ones only. */
function present(fields: Record<string, unknown>, names: readonly string[]): string[] {
  return names.map((name) => textOf(fields[name])).filter((text) => text !== '');
}

/**
 * The Details column of the ACLs table: what the knoc names on its backend, by type (the IP sets,
 * the HAProxy ACL id, the address group …).
 */
export function aclDetails(knoc: KnocRecord, t: TFunction): string {
  const type = knoc.BackendType;
  const raw = knoc.Config[type];
  const fields = raw !== null && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
  switch (type) {
    case 'ipset':
    case 'nftables':
      return present(fields, ['V4SetName', 'V6SetName']).join(', ');
    case 'haproxy':
      return t('aclsScreen.details.haproxy', { id: textOf(fields.ID) });
    case 'allowlist':
      return t('aclsScreen.details.allowlist');
    case 'panos':
      return present(fields, ['GroupName', 'EDLName']).join(', ');
    case 'firepower':
      return present(fields, ['GroupUUID']).join('');
    case 'sophosutm':
      return present(fields, ['GroupReference']).join('');
    case 'sophossfos':
      return present(fields, ['GroupName', 'GroupNameV6']).join(', ');
    case 'azure':
      return t('aclsScreen.details.azure', {
        name: textOf(fields.NsgName),
        direction: textOf(fields.NsgDirection),
        port: textOf(fields.NsgPort),
      });
    case 'aws':
      return t('aclsScreen.details.aws', {
        group: textOf(fields.SecurityGroupId),
        port: textOf(fields.Port),
      });
    case 'knocproxy':
    case 'script':
    case 'fortios':
    case 'fortimanager':
      return present(fields, ['Name']).join('');
  }
}

import { Anchor, Text } from '@mantine/core';
import type { AclEntry } from '@postern/protocol';
import { browsableUrl } from '../../../../features/acls/acl-view';

/** Props of {@link AclName}. */
export interface AclNameProps {
  acl: AclEntry;
  id?: string;
  /** Called when the person opens the system's address (a use, for the Top section). */
  onOpen: (aclId: string) => void;
}

/** The ACL's description, a link to its system (in a new tab) when its URL is http or https. */
export function AclName({ acl, id, onOpen }: AclNameProps) {
  const url = browsableUrl(acl.URL);
  return (
    <Text fw={600} id={id} style={{ overflowWrap: 'anywhere' }}>
      {url === null ? (
        acl.Description
      ) : (
        <Anchor href={url} target="_blank" rel="noopener noreferrer" inherit onClick={() => onOpen(acl.ACLID)}>
          {acl.Description}
        </Anchor>
      )}
    </Text>
  );
}

/** The host of the ACL's URL, shown small under its name; null when it has none worth showing. */
export function aclHost(acl: AclEntry): string | null {
  const url = browsableUrl(acl.URL);
  return url === null ? null : new URL(url).host;
}

import type { AclEntry } from '@postern/protocol';
import type { AclActions } from '../../../../features/acls/use-acl-actions';

/** What a card or a list row of the dashboard shows and does. */
export interface AclRowProps {
  acl: AclEntry;
  favourite: boolean;
  actions: AclActions;
  onToggleFavourite: (aclId: string) => void;
  /** The person opened the system's address. */
  onOpen: (aclId: string) => void;
}

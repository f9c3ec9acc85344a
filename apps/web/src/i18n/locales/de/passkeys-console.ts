import type { MirroredResource } from '../../resource-types';
import type { passkeysConsole as english } from '../en/passkeys-console';

/** German: die Passkeys eines Kontos in der Konsole (Benutzer und Administratoren). */
export const passkeysConsole: MirroredResource<typeof english> = {
  passkeyConsole: {
    detail: 'Passkeys',
    none: 'Keine',
    count_one: '{{count}} Passkey',
    count_other: '{{count}} Passkeys',
    unavailable: 'Für dieses Konto sind keine Passkeys verfügbar',
    own: 'Ihre eigenen Passkeys verwalten Sie über die Schaltfläche „Passkeys“ oben',
    remove: 'Passkeys entfernen',
    removeOf: 'Passkeys von {{name}} entfernen',
    removeTitle: 'Passkeys entfernen',
    removeMessage:
      'Alle Passkeys von {{name}} entfernen? Die Anmeldung damit ist dann nicht mehr möglich; ohne anderen zweiten Faktor muss erneut einer eingerichtet werden.',
    removed: 'Passkeys entfernt',
  },
};

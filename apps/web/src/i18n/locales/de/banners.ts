import type { MirroredResource } from '../../resource-types';
import type { banners as english } from '../en/banners';

/** German: the admin banner area (every admin page) and the admin home's licence expiry notice. */
export const banners: MirroredResource<typeof english> = {
  banners: {
    dismiss: 'Für diese Sitzung ausblenden',
    unlicensed: {
      title: 'Postern ist nicht lizenziert',
      body: 'Ohne gültige Lizenz erhalten Benutzer keinen Zugang, und Knocs können weder angelegt noch geändert werden.',
      action: 'Lizenz erwerben',
      install: 'Lizenzschlüssel eingeben',
    },
    agentIncompatible: {
      title: 'Agent ist mit der Serverversion nicht kompatibel',
      bodyOne:
        'Ein Agent verwendet eine Version, die dieser Server nicht mehr unterstützt: {{names}}. Agents benötigen Version {{version}} oder neuer.',
      body: '{{count}} Agents verwenden eine Version, die dieser Server nicht mehr unterstützt: {{names}}. Agents benötigen Version {{version}} oder neuer.',
      action: 'Zu den Agents',
    },
    userLimit: {
      title: 'Benutzergrenze überschritten',
      grace: 'Es gibt mehr Benutzer, als die Lizenz erlaubt. Der Kulanzrahmen lässt noch {{remaining}} weitere zu.',
      warning:
        'Es gibt {{percent}} % mehr Benutzer, als die Lizenz erlaubt. Der Kulanzrahmen lässt nur noch {{remaining}} weitere zu: Erweitern Sie die Lizenz bald.',
      beyond:
        'Es gibt mehr Benutzer, als Lizenz und Kulanzrahmen erlauben: Benutzer erhalten keinen Zugang, bis die Lizenz erweitert ist.',
      usage: 'Lizenznutzung',
      licensedUsage: 'Benutzer innerhalb der Lizenz',
      graceUsage: 'Benutzer im Kulanzrahmen',
      licensed: 'Lizenzierte Benutzer',
      graceSeats: 'Kulanz',
      current: 'Aktuell',
      remaining: 'Verbleibend',
      upgrade: 'Lizenz erweitern',
      manageUsers: 'Benutzer verwalten',
    },
    serverUpdate: {
      title: {
        low: 'Ein Postern-Update ist verfügbar',
        medium: 'Ein empfohlenes Postern-Update ist verfügbar',
        high: 'Ein wichtiges Postern-Update ist verfügbar: Bitte bald aktualisieren',
        critical: 'Ein kritisches Postern-Update ist verfügbar: Jetzt aktualisieren',
      },
      body: 'Version {{version}} ist verfügbar; dieser Server verwendet Version {{current}}.',
      changelog: 'Änderungsprotokoll lesen',
    },
    licenceExpiry: {
      title: 'Ihre Lizenz läuft bald ab',
      bodyOneDay: 'Die Lizenz läuft in 1 Tag ab, am {{date}}. Verlängern Sie sie, damit Benutzer weiter Zugang haben.',
      body: 'Die Lizenz läuft in {{days}} Tagen ab, am {{date}}. Verlängern Sie sie, damit Benutzer weiter Zugang haben.',
    },
  },
};

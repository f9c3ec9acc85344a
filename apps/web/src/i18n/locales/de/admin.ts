import type { MirroredResource } from '../../resource-types';
import type { admin as english } from '../en/admin';

/** German: the admin console. */
export const admin: MirroredResource<typeof english> = {
  adminShell: {
    navigation: 'Administrationsnavigation',
    toggleNavigation: 'Navigation ein- oder ausblenden',
    signedInAs: 'Angemeldet als {{name}}',
    logout: 'Abmelden',
  },
  adminHome: {
    counters: {
      sessions: 'Aktive Sitzungen',
      acls: 'Knocs',
      users: 'Benutzer',
    },
    activity: {
      title: 'Letzte Aktivitäten',
      user: 'Benutzer',
      date: 'Datum',
      action: 'Aktion',
      empty: 'Keine Aktivitäten in letzter Zeit',
    },
  },
  adminSettings: {
    discoverIpTrustUnattested: {
      label: 'Adressen vertrauen, die die IP-Erkennungs-URL ohne Signatur meldet',
      risk: 'Nur für eine externe IP-Erkennungs-URL, die ihre Antworten nicht signieren kann. Solange dies eingeschaltet ist, kann jeder angemeldete Benutzer beliebige Adressen auf CGNATOpen-Systemen freischalten lassen, nicht nur Adressen, die er wirklich verwendet. Die eingebaute IP-Erkennung von Postern braucht dieses Vertrauen nicht.',
    },
  },
};

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
    firstRun: {
      title: 'Erste Schritte',
      progress: '{{done}} von {{total}} erledigt',
      done: 'Erledigt',
      todo: 'Offen',
      todoOpens: {
        createAgent: 'Offen: einen Agenten anlegen',
        installAgent: 'Offen: den Agenten „{{name}}“ installieren',
      },
      allDone: 'Postern ist eingerichtet: Lizenz, ein verbundener Agent, ein Knoc und ein Benutzer.',
      steps: {
        licence: 'Lizenz installieren',
        agent: 'Agent verbinden',
        knoc: 'Ersten Knoc anlegen',
        user: 'Ersten Benutzer anlegen',
      },
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

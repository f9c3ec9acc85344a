import type { MirroredResource } from '../../resource-types';
import type { common as english } from '../en/common';

/** German: texts every area shares: app name, route titles, colour scheme, form, table and dialog controls, the error dialog. */
export const common: MirroredResource<typeof english> = {
  app: {
    name: 'Postern',
    adminName: 'Postern-Administration',
    loading: 'Wird geladen…',
    documentTitle: {
      user: '{{page}} · Postern',
      admin: '{{page}} · Postern-Administration',
    },
  },
  route: {
    login: 'Anmelden',
    home: 'Startseite',
    dashboard: 'Übersicht',
    twoFactor: 'Zwei-Faktor-Bestätigung',
    twoFactorOnboard: 'Zwei-Faktor-Authentifizierung einrichten',
    adminLogin: 'Administrator-Anmeldung',
    adminTwoFactor: 'Zwei-Faktor-Bestätigung für Administratoren',
    adminTwoFactorOnboard: 'Zwei-Faktor-Einrichtung für Administratoren',
    adminHome: 'Startseite',
    agents: 'Agenten',
    knocs: 'Knocs',
    knocsNew: 'Neuer Knoc',
    knocsNewLinux: 'Neuer Linux-Knoc',
    knocsNewApplication: 'Neuer Anwendungs-Knoc',
    knocsNewProxy: 'Neuer Proxy-Knoc',
    knocsNewScript: 'Neuer Skript-Knoc',
    knocUpdate: 'Knoc bearbeiten',
    backends: 'Backends',
    acls: 'ACLs',
    groups: 'Gruppen',
    users: 'Benutzer',
    admins: 'Administratoren',
    logs: 'Protokolle',
    apiKeys: 'API-Schlüssel',
    settings: 'Einstellungen',
  },
  colorScheme: {
    change: 'Farbschema ändern',
    light: 'Hell',
    dark: 'Dunkel',
    auto: 'Automatisch',
  },
  language: {
    change: 'Sprache: {{language}}. Sprache ändern',
    notSaved: 'Die Sprache gilt in diesem Browser, konnte aber nicht mit Ihrem Konto gespeichert werden.',
  },
  form: {
    tooLong: 'Diese Eingabe ist zu lang',
  },
  table: {
    search: 'Suchen',
    empty: 'Keine Einträge',
    noMatches: 'Keine Einträge passen zur Suche',
    pager: {
      label: 'Seiten',
      previous: 'Vorherige Seite',
      next: 'Nächste Seite',
      page: 'Seite {{page}}',
    },
  },
  dialog: {
    cancel: 'Abbrechen',
    confirm: 'Bestätigen',
    save: 'Speichern',
    close: 'Schließen',
    copy: 'Kopieren',
    copied: 'Kopiert',
    shownOnce: 'Dies wird nur einmal angezeigt. Kopieren Sie es jetzt.',
  },
  error: {
    title: 'Fehler',
    internal: 'Ein interner Serverfehler ist aufgetreten',
    tooManyRequestsRetry: 'Zu viele Anfragen, bitte versuchen Sie es {{when, relativetime}} erneut',
  },
};

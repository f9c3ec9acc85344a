/** German: the admin console's Logs screen. */
export const logsScreen = {
  logsScreen: {
    tableLabel: 'Audit-Protokoll',
    searchLabel: 'Audit-Protokoll durchsuchen',
    empty: 'Das Audit-Protokoll ist leer',
    emptyFiltered: 'Kein Eintrag passt zu den Filtern',
    columns: {
      date: 'Datum',
      actor: 'Ausgeführt von',
      target: 'Betrifft',
      action: 'Aktion',
      details: 'Details',
    },
    view: 'Details des Eintrags vom {{date}} anzeigen',
    download: 'CSV herunterladen',
    clear: 'Einträge älter als {{days}} Tage löschen',
    more: 'Weitere Protokollaktionen',
    filters: {
      label: 'Audit-Protokoll filtern',
      action: 'Aktion',
      anyAction: 'Jede Aktion',
      actor: 'Ausgeführt von',
      target: 'Betrifft',
      from: 'Von',
      to: 'Bis',
      reset: 'Filter zurücksetzen',
      rangeOrder: '„Bis“ muss nach „Von“ liegen',
    },
    detail: {
      title: 'Audit-Eintrag',
      date: 'Datum',
      action: 'Aktion',
      actor: 'Ausgeführt von',
      target: 'Betrifft',
      UserName: 'Benutzername',
      AdminName: 'Admin-Name',
      AgentName: 'Agent-Name',
      IpAddress: 'IP-Adresse',
      AclDescription: 'Knoc',
      Description: 'Beschreibung',
      ErrorMessage: 'Fehlermeldung',
    },
    clearConfirm: {
      title: 'Alte Protokolleinträge löschen',
      message:
        'Alle Audit-Einträge löschen, die älter als {{days}} Tage sind? Dies kann nicht rückgängig gemacht werden.',
      confirm: 'Löschen',
    },
    notify: {
      // The base key satisfies the literal-key check; i18next picks _one/_other by count.
      cleared: '{{count}} Protokolleinträge gelöscht',
      cleared_one: '{{count}} Protokolleintrag gelöscht',
      cleared_other: '{{count}} Protokolleinträge gelöscht',
      downloaded: '{{fileName}} gespeichert',
    },
  },
};

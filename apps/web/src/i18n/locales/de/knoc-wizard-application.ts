/** Deutsch: der Assistent für Anwendungs-Knocs (/admin/knocs/new/application). */
export const knocWizardApplication = {
  knocWizardApplication: {
    title: 'Neuer Anwendungs-Knoc',
    steps: {
      settings: 'Einstellungen',
      options: 'Knoc-Optionen',
      apiKey: 'API-Schlüssel',
      agent: 'Agent',
      members: 'Benutzer und Gruppen',
      review: 'Überprüfen',
    },
    settings: {
      applicationType: 'Anwendungstyp',
      applicationTypeDescription: {
        passive: 'Die Firewall fragt eine veröffentlichte Allowlist ab (etwa alle 60 Sekunden).',
        'passive+':
          'Die Firewall liest eine veröffentlichte Allowlist; ein Agent veranlasst sofort eine Aktualisierung.',
        active: 'Ein Agent ändert die Firewall sofort über ihre API.',
      },
      vendor: 'Hersteller',
      vendorGroups: {
        drivers: 'Über ihre API gesteuert',
        scripts: 'Über ein Skript auf dem Agenten gesteuert',
      },
      vendorFixed: 'Passiv+ funktioniert nur mit Firewalls von Palo Alto.',
      description: 'Name',
      url: 'URL',
      urlDescription: 'Die Adresse, die Benutzer über ihr Dashboard öffnen (optional).',
      backendLegend: 'Verbindung zu {{vendor}}',
      aclLegend: 'Regel in {{vendor}}',
      invalid: 'Geben Sie hier einen gültigen Wert ein',
      passiveNote: 'Die Adresse der veröffentlichten Allowlist erhalten Sie, sobald der Knoc angelegt ist.',
    },
    scriptVendor: {
      title: '{{vendor}} über ein Skript',
      body: 'Postern hat keinen eigenen Treiber für {{vendor}}. Dieser Knoc führt {{command}} aus dem Skriptverzeichnis des Agenten aus, mit der Aktion, dem ACL-Namen und der Adresse des Benutzers; legen Sie das Skript dort ab (der Agent führt Skripte nur aus diesem Verzeichnis aus) und übergeben Sie ihm Adresse und Zugangsdaten des Geräts als Variablen, Geheimnisse als vertraulich markiert.',
    },
    types: {
      passive: 'Passiv',
      'passive+': 'Passiv+',
      active: 'Aktiv',
    },
    vendors: {
      fortinet: 'Fortinet',
      fortimanager: 'FortiManager',
      palo: 'Palo Alto',
      firepower: 'Cisco Firepower',
      sophosutm: 'Sophos UTM',
      sophossfos: 'Sophos SFOS',
      aws: 'Amazon AWS',
      azure: 'Azure NSG',
      juniper: 'Juniper',
      checkpoint: 'Checkpoint',
      digitalocean: 'Digital Ocean',
      pfsense: 'PfSense',
      mikrotik: 'Mikrotik',
    },
    apiKey: {
      option: 'Wie die Firewall die Allowlist liest',
      options: {
        new: 'Neuer API-Schlüssel',
        existing: 'Vorhandener API-Schlüssel',
        none: 'Kein API-Schlüssel',
      },
      name: 'Name des API-Schlüssels',
      existingTable: 'API-Schlüssel',
      columns: { select: 'Auswahl' },
      choose: 'API-Schlüssel {{name}} auswählen',
      noKeys: 'Es gibt noch keine API-Schlüssel',
      existingRequired: 'Wählen Sie einen API-Schlüssel aus',
      noneTitle: 'Die Allowlist ist nicht durch einen Schlüssel geschützt',
      noneWarning:
        'Wer die Adresse der Allowlist kennt und sich aus einem der unten genannten Bereiche verbindet, kann sie lesen. Beschränken Sie die Bereiche auf Ihre Firewall.',
      restriction: {
        legend: 'IP-Beschränkung für den Zugriff auf die Allowlist',
        range: 'Adressbereich {{number}}',
        remove: 'Adressbereich {{number}} entfernen',
        add: 'Adressbereich hinzufügen',
      },
    },
    review: {
      application: 'Anwendung',
      apiKey: 'API-Schlüssel',
      newKey: 'Ein neuer API-Schlüssel „{{name}}“, erlaubt von {{ranges}}',
      existingKey: 'Der vorhandene API-Schlüssel „{{name}}“',
      noKey: 'Kein API-Schlüssel; lesbar von {{ranges}}',
    },
    created: {
      title: 'Knoc angelegt',
      description:
        'Richten Sie die Firewall mit den folgenden Werten ein. Der API-Schlüssel wird nur einmal angezeigt: Kopieren Sie ihn jetzt und bewahren Sie ihn sicher auf.',
      apiKey: 'API-Schlüssel',
      apiKeyName: 'API-Schlüssel „{{name}}“',
      allowlistUrl: 'URL der Allowlist',
      basicAuth:
        'Die Firewall ruft die Allowlist mit Basic-Authentifizierung ab: Benutzername apiuser, der API-Schlüssel als Passwort.',
      copy: '{{what}} kopieren',
    },
  },
};

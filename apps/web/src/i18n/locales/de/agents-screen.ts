/** German: the admin console's Agents screen. */
export const agentsScreen = {
  agentsScreen: {
    documentation: 'Dokumentation',
    documentationLabel: 'Dokumentation zu Agenten',
    create: 'Agent anlegen',
    search: 'Agenten durchsuchen',
    tableLabel: 'Agenten',
    empty: 'Noch keine Agenten. Legen Sie einen an und installieren Sie ihn mit dem angezeigten Befehl auf einem Host.',
    column: {
      name: 'Name',
      capabilities: 'Fähigkeiten',
      activity: 'Aktivität',
      version: 'Version',
      ipAddress: 'IP-Adresse',
      actions: 'Aktionen',
    },
    activity: {
      awaiting: 'Wartet auf Verbindung',
      online: 'Verbunden',
      offline: 'Offline',
      copyToken: 'Token von {{name}} kopieren',
      tokenCopied: 'Token kopiert',
    },
    capabilities: {
      notReported: 'Noch nicht gemeldet',
      open: '{{os}}: Fähigkeiten von {{name}} anzeigen',
      title: 'Fähigkeiten von {{name}}',
      operatingSystem: 'Betriebssystem',
      available: 'Verfügbar',
      unavailable: 'Nicht verfügbar',
      documentation: 'Dokumentation zu {{capability}}',
      ipset: {
        title: 'IPSet',
        noSets: 'keine IP-Sets gefunden',
        sets: 'Sets, die der Agent ändern darf',
      },
      script: {
        title: 'Eigenes Skript',
        enabled: 'Aktiviert',
        disabled: 'In der Agent-Konfiguration deaktiviert',
      },
      haproxy: {
        title: 'HAProxy',
        socket: 'Runtime-API-Socket: {{socket}}',
        noSocket: 'Kein Runtime-API-Socket konfiguriert',
      },
      other: {
        title: 'Sonstige',
        types: 'Steuert außerdem: {{types}}',
        none: 'Keine weiteren Backend-Typen',
      },
    },
    version: {
      unknown: 'Unbekannt',
      incompatible: 'Inkompatibel',
      outdated: 'Veraltet',
      current: 'Aktuell',
      unknownHint: 'Der Agent hat seine Version noch nicht gemeldet.',
      incompatibleHint:
        'Älter als {{minimum}}, die älteste Version, mit der dieser Server arbeitet. Aktualisieren Sie den Agenten.',
      outdatedHint:
        'Version {{newest}} ist verfügbar. Spielen Sie Betriebssystem-Updates ein oder führen Sie den Installationsbefehl erneut aus.',
      currentHint: 'Dieser Agent hat die neueste Version.',
    },
    actions: {
      menu: 'Aktionen für {{name}}',
      viewToken: 'Token anzeigen',
      edit: 'Bearbeiten',
      rotateToken: 'Token erneuern',
      delete: 'Löschen',
    },
    form: {
      createTitle: 'Agent anlegen',
      editTitle: 'Agent umbenennen',
      name: 'Name',
      nameDescription: 'Unter diesem Namen wird der Agent geführt, z. B. der Host, auf dem er läuft',
      nameRequired: 'Geben Sie einen Namen ein',
      nameControlCharacters: 'Der Name darf keine Steuerzeichen enthalten',
      submitCreate: 'Anlegen',
    },
    token: {
      title: 'Agent {{name}} installieren',
      intro: 'Führen Sie diesen Befehl als root auf dem Host aus (benötigt Node.js 20 oder neuer und curl):',
      command: 'Installationsbefehl',
      token: 'Token',
      copyCommand: 'Installationsbefehl kopieren',
      copyToken: 'Token kopieren',
      secret: 'Halten Sie den Token geheim: Wer ihn hat, kann sich als dieser Agent verbinden.',
      viewLater: 'Sie können diesen Token später über „Token anzeigen“ im Aktionsmenü des Agenten erneut ansehen.',
      rotated: 'Der bisherige Token gilt nicht mehr. Installieren Sie den Agenten mit diesem Befehl neu.',
      serverGuessTitle: 'Prüfen Sie die Serveradresse in diesem Befehl',
      serverGuess:
        'Für diesen Server ist keine öffentliche URL gesetzt (POSTERN_PUBLIC_URL), daher kennt sein Installationsskript die Adresse des Servers nicht. Der Befehl nennt mit --server die Adresse, die dieser Browser verwendet, {{origin}}: eine Vermutung. Stellen Sie sicher, dass der Host des Agenten den Server unter dieser Adresse erreicht, oder ändern Sie sie. Um die Adresse einmal für alle Installationen festzulegen, tragen Sie POSTERN_PUBLIC_URL=<die Adresse, die Agenten und Personen verwenden> in die Umgebung des Servers ein (/etc/postern/postern.env bei einer Installation mit scripts/install-server.sh) und starten Sie den Server neu.',
      live: {
        waiting: 'Warten auf die Verbindung des Agenten …',
        waitingHint:
          'Diese Anzeige aktualisiert sich von selbst, sobald der Befehl auf dem Host gelaufen ist und der Agent sich verbunden hat.',
        connected: '{{name}} ist verbunden',
        connectedHint:
          'Der Agent hat seinen Schlüssel mit diesem Token registriert. Vergleichen Sie den Fingerabdruck mit dem, den der Agent protokolliert (journalctl -u postern-agent).',
        offline: '{{name}} ist registriert, aber nicht verbunden',
        offlineHint:
          'Der Agent hat seinen Schlüssel registriert, hält aber gerade keine Verbindung. Prüfen Sie ihn auf dem Host mit: systemctl status postern-agent',
        fingerprint: 'Schlüssel-Fingerabdruck',
        version: 'Version',
        address: 'Verbunden von',
        backendTypes: 'Backend-Typen',
        ipsets: 'Gefundene IP-Sets',
        scripts: 'Skripte',
        none: 'Keine',
      },
    },
    delete: {
      title: 'Agent löschen',
      message: 'Den Agenten „{{name}}“ löschen? Er wird getrennt und sein Token gilt nicht mehr.',
      confirm: 'Löschen',
    },
    rotate: {
      title: 'Token erneuern',
      message:
        '„{{name}}“ einen neuen Token geben? Der jetzige Token gilt sofort nicht mehr, der Agent wird getrennt und muss mit dem neuen Token neu installiert werden.',
      confirm: 'Token erneuern',
    },
    messages: {
      agentCreated: 'Agent angelegt',
      agentUpdated: 'Agent aktualisiert',
      agentDeleted: 'Agent gelöscht',
      tokenRotated: 'Token erneuert',
    },
  },
};

/** German: the admin console's Knocs list, knoc detail dialog and knoc type chooser. */
export const knocsScreen = {
  knocsScreen: {
    tableLabel: 'Knocs',
    buttons: {
      create: 'Knoc anlegen',
    },
    columns: {
      name: 'Name',
      details: 'Details',
      users: 'Benutzer',
      groups: 'Gruppen',
      agent: 'Agent',
      lastModified: 'Zuletzt geändert',
    },
    agentNone: {
      allowlist: '— (veröffentlichte Allowlist)',
      other: '— (keiner)',
    },
    lastModifiedBy: 'von {{name}}',
    details: {
      ipset: 'ipset {{sets}}',
      nftables: 'nftables {{family}} {{table}}: {{sets}}',
      allowlist: 'Allowlist',
      allowlistPassivePlus: 'Allowlist, auf der Firewall von einem Agenten aktualisiert (passiv+)',
      haproxy: 'HAProxy-ACL #{{id}}',
      knocproxy: 'Proxy {{name}} auf {{address}}',
      script: 'Skript {{command}}',
      vendor: '{{vendor}}: {{object}}',
    },
    types: {
      ipset: 'Linux-ipset',
      nftables: 'Linux-nftables',
      allowlist: 'Allowlist',
      haproxy: 'HAProxy',
      knocproxy: 'Knoc-Proxy',
      script: 'Skript',
    },
    restrictions: {
      none: 'Keine',
      RFC1918: 'Private Adressen (RFC 1918)',
      allowList: 'Nur die aufgeführten Bereiche',
      denyList: 'Alle außer den aufgeführten Bereichen',
    },
    test: {
      title: 'Diesen Knoc testen',
      intro:
        'Gibt die Adresse über den Agenten des Knocs für eine Minute frei, zeigt, was der Agent vom Gerät zurückmeldet, und widerruft die Freigabe wieder.',
      address: 'Testadresse',
      addressHint: 'Leer lassen, um Ihre eigene aktuelle Adresse zu testen.',
      addressPlaceholder: 'Ihre aktuelle Adresse',
      run: 'Diesen Knoc testen',
      running: 'Freigeben, auf die Rückmeldung des Agenten warten, widerrufen…',
      passed: 'Das Gerät hält {{ip}}',
      accepted: 'Das Gerät hat {{ip}} übernommen',
      lost: 'Das Gerät hat {{ip}} nicht behalten',
      readBack: 'Rückmeldung',
      held: 'Agent {{agent}} hat {{ip}} auf das Gerät geschrieben und dort wieder ausgelesen ({{when}}).',
      absent:
        'Agent {{agent}} hat {{ip}} geschrieben, und das Gerät hat sie angenommen, aber beim Auslesen des Geräts war sie nicht da ({{when}}): Etwas auf dem Gerät entfernt oder überschreibt die Einträge von Postern.',
      unreadable:
        'Agent {{agent}} hat {{ip}} geschrieben, und das Gerät hat sie angenommen ({{when}}); das Gerät ließ sich nicht auslesen: {{detail}}.',
      unreported:
        'Agent {{agent}} hat {{ip}} geschrieben, und das Gerät hat sie angenommen ({{when}}); diese Version des Agenten liest das Gerät nicht aus (aktualisieren Sie den Agenten, um es zu sehen).',
      revoked: 'Wieder widerrufen; der Agent hat die Adresse vom Gerät genommen.',
      notRevoked: 'Das Entfernen wurde gesendet, aber noch nicht bestätigt; der Eintrag endet von selbst um {{ends}}.',
      revokeError: 'Das Gerät hat das Entfernen abgelehnt: {{error}}. Der Eintrag endet von selbst um {{ends}}.',
      failed: 'Der Test ist fehlgeschlagen',
      noDevice: 'Kein Agent setzt diesen Knoc durch, es gibt also nichts zu testen.',
    },
    detail: {
      title: 'Knoc',
      settings: 'Einstellungen',
      type: 'Typ',
      backend: 'Backend',
      noAgent: 'Keiner',
      url: 'Adresse',
      category: 'Kategorie',
      clickToGrant: 'Per Klick freigeben',
      hideFromUsers: 'Für Benutzer ausgeblendet',
      autoBrowseUsers: 'Öffnet sich für Benutzer nach der Freigabe',
      maximumGrantDuration: 'Maximale Freigabedauer',
      noMaximum: 'Keine',
      minutes_one: '{{count}} Minute',
      minutes_other: '{{count}} Minuten',
      ipRestriction: 'IP-Einschränkung',
      grantType: 'Freigabe für',
      userIp: 'Die Adresse des Benutzers',
      yes: 'Ja',
      no: 'Nein',
      verify: 'Prüfen, ob es funktioniert',
      childFirewall: 'Die Firewall, die der Agent aktualisiert',
      copy: 'Kopieren: {{what}}',
    },
    verify: {
      allowlist: {
        withKey:
          'Rufen Sie die Allowlist mit dem API-Schlüssel ab, der sie lesen darf: Benutzername „apiuser“, der Schlüssel als Passwort. Ersetzen Sie <API key> durch den Schlüssel.',
        byIp: 'Rufen Sie die Allowlist von einer Adresse ab, die sie ohne Schlüssel lesen darf: {{addresses}}.',
        lists:
          'Die Antwort enthält die derzeit freigegebenen Adressen, eine pro Zeile; geben Sie sich selbst Zugriff und rufen Sie sie erneut ab, um Ihre zu sehen.',
        passivePlus:
          'Nach jeder Änderung veranlasst ein Agent die Firewall, die Liste neu abzurufen, statt auf ihre nächste Abfrage zu warten.',
        url: 'Adresse der Allowlist',
        request: 'Abruf',
      },
      haproxy: {
        intro:
          'Lesen Sie auf dem HAProxy-Host die ACL #{{id}} über den Socket der Runtime-API ({{socket}}) aus: Solange der Zugriff besteht, ist die Adresse eines freigegebenen Benutzers einer ihrer Einträge.',
        read: 'ACL auslesen',
      },
      knocproxy: {
        intro: 'Der Agent betreibt auf {{address}} einen Proxy vor {{url}}.',
        check:
          'Von einer freigegebenen Adresse leitet der Proxy Anfragen an diese Adresse weiter; jeder anderen Adresse antwortet er mit 403 Forbidden. Verwenden Sie http://, wenn der Agent den Proxy ohne TLS bereitstellt.',
        request: 'Anfrage über den Proxy',
      },
      ipset: {
        intro:
          'Listen Sie auf dem Host des Agenten {{agent}} das Set auf: Solange der Zugriff besteht, ist die Adresse eines freigegebenen Benutzers eines seiner Mitglieder.',
        list: '{{name}} auflisten',
      },
      nftables: {
        intro:
          'Listen Sie auf dem Host des Agenten {{agent}} das Set in der Tabelle {{table}} ({{family}}) auf: Solange der Zugriff besteht, ist die Adresse eines freigegebenen Benutzers eines seiner Elemente, mit der Zeit bis zu seinem Ablauf.',
        list: '{{name}} auflisten',
      },
      script: {
        intro:
          'Agent {{agent}} führt {{command}} bei jeder Freigabe und jedem Entzug aus seinem Skriptverzeichnis aus, mit add oder remove, dem Knoc-Namen und der Adresse als Argumenten.',
        variables: 'Das Skript erhält diese Umgebungsvariablen: {{variables}}.',
        invocation: 'So ruft der Agent es auf',
      },
      vendor: {
        fortios:
          'Öffnen Sie auf dem FortiGate die Adressgruppe {{object}} (Policy & Objects, Addresses): Die Adresse eines freigegebenen Benutzers wird ihr als Adressobjekt hinzugefügt.',
        fortimanager:
          'Öffnen Sie im FortiManager die Adressgruppe {{object}}: Die Adresse eines freigegebenen Benutzers wird ihr hinzugefügt und auf den verwalteten Geräten installiert.',
        panos:
          'Öffnen Sie auf der Firewall oder in Panorama die Adressgruppe {{object}} (Objects, Address Groups): Die Adresse eines freigegebenen Benutzers wird ihr hinzugefügt.',
        edl: 'Öffnen Sie auf der Firewall die External Dynamic List {{object}} (Objects, External Dynamic Lists) und lassen Sie ihre Einträge anzeigen: Es sind die Adressen der Allowlist.',
        firepower:
          'Öffnen Sie im Firepower Management Center die Netzwerkgruppe {{object}}: Die Adresse eines freigegebenen Benutzers wird ihr hinzugefügt.',
        sophosutm:
          'Öffnen Sie auf der Sophos UTM die Netzwerkgruppe {{object}}: Die Adresse eines freigegebenen Benutzers wird ihr hinzugefügt.',
        sophossfos:
          'Öffnen Sie auf der Sophos-Firewall die IP-Host-Gruppe {{object}}: Die Adresse eines freigegebenen Benutzers wird ihr hinzugefügt.',
        azure:
          'Öffnen Sie im Azure-Portal die Netzwerksicherheitsgruppe {{object}}: Die Adresse eines freigegebenen Benutzers erhält eine eigene Regel.',
        aws: 'Öffnen Sie in der AWS-Konsole die Sicherheitsgruppe {{object}}: Die Adresse eines freigegebenen Benutzers erhält eine eingehende Regel.',
        object: 'Objekt auf dem Gerät',
      },
    },
    actions: {
      menu: 'Aktionen für {{name}}',
      edit: 'Bearbeiten',
      delete: 'Löschen',
    },
    confirm: {
      deleteTitle: 'Knoc löschen',
      deleteMessage: 'Knoc „{{name}}“ löschen? Benutzer verlieren den Zugriff, den er ihnen gibt.',
      delete: 'Löschen',
      deleteKeyTitle: 'Auch den API-Schlüssel löschen?',
      deleteKeyMessage:
        'Der API-Schlüssel „{{name}}“ hat nur diese Allowlist gelesen. Soll er ebenfalls gelöscht werden?',
      deleteKey: 'Schlüssel löschen',
    },
    msg: {
      knocUpdated: 'Knoc erfolgreich aktualisiert',
      knocDeleted: 'Knoc gelöscht',
      apiKeyDeleted: 'API-Schlüssel gelöscht',
    },
    chooser: {
      intro: 'Was soll der neue Knoc schützen?',
    },
    tiles: {
      linux: {
        title: 'Linux-Host/Firewall',
        description:
          'Ein Agent fügt die Adressen freigegebener Benutzer einem ipset oder nftables-Set hinzu, auf das die Firewall-Regeln des Hosts zugreifen.',
        action: 'Neuer Linux-Knoc',
      },
      application: {
        title: 'Anwendung',
        description:
          'Eine Firewall oder Cloud-Sicherheitsgruppe: passiv (sie fragt eine Allowlist ab), passiv+ (ein Agent lässt sie die Liste abrufen) oder aktiv (der Agent ändert sie direkt).',
        action: 'Neuer Anwendungs-Knoc',
      },
      proxy: {
        title: 'Proxy',
        description:
          'HAProxy oder der eigene Proxy des Agenten lässt nur freigegebene Adressen zu einer Webanwendung durch.',
        action: 'Neuer Proxy-Knoc',
      },
      module: {
        title: 'Modul',
        description: 'Ein mitgeliefertes Skript im Skriptverzeichnis des Agenten, ausgeführt von einem Skript-Knoc.',
        action: 'Über Module',
      },
      script: {
        title: 'Skript',
        description: 'Der Agent führt bei jeder Freigabe und jedem Entzug Ihr eigenes Programm aus.',
        action: 'Neuer Skript-Knoc',
      },
      contact: {
        title: 'Kontakt',
        description: 'Sie brauchen eine Integration, die Postern noch nicht bietet? Fragen Sie nach einer eigenen.',
        action: 'Integration anfragen',
        noContact: 'Der Betreiber dieser Installation hat keine Kontaktadresse eingerichtet.',
        mailSubject: 'Postern: Anfrage für eine eigene Integration',
      },
    },
    module: {
      title: 'Module',
      directory:
        'Module sind mitgelieferte Skripte. Kopieren Sie ein Modul in das Skriptverzeichnis des Agenten (scripts.directory, POSTERN_AGENT_SCRIPTS_DIR, standardmäßig /etc/postern-agent/scripts); das Verzeichnis darf für Gruppe und andere nicht beschreibbar sein.',
      enable: 'Der Agent führt Skripte nur aus, wenn scripts.enabled gesetzt ist (POSTERN_AGENT_SCRIPTS_ENABLED=true).',
      useInKnoc:
        'Legen Sie dann auf diesem Agenten einen Skript-Knoc an und geben Sie den Dateinamen des Moduls als Befehl an: Der Agent führt es bei jeder Freigabe und jedem Entzug aus.',
      variables: 'Das Modul erhält die eigenen Variablen des Knocs und diese:',
    },
  },
};

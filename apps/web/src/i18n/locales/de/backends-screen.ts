/** German: the admin console's Backends screen and the backend and knoc config fields every knoc form shares. */

const insecure = 'TLS-Zertifikat nicht prüfen';
const hostname = 'Hostname';
const apiKey = 'API-Schlüssel';
const socket = { Protocol: 'Protokoll', Address: 'Adresse' };
const login = { Hostname: hostname, Insecure: insecure, Username: 'Benutzername', Password: 'Passwort' };
const apiKeyLogin = { Hostname: hostname, Insecure: insecure, ApiKey: apiKey };
const port = 'Port';

export const backendsScreen = {
  backendsScreen: {
    tableLabel: 'Backends',
    empty: 'Noch keine Backends',
    noAgent: 'Keiner',
    columns: {
      name: 'Name',
      type: 'Typ',
      agent: 'Agent',
      modified: 'Zuletzt geändert',
      actions: 'Aktionen',
    },
    buttons: {
      create: 'Backend anlegen',
    },
    actions: {
      edit: '{{name}} bearbeiten',
      delete: '{{name}} löschen',
    },
    form: {
      createTitle: 'Backend anlegen',
      editTitle: 'Backend {{name}} bearbeiten',
      name: 'Name',
      type: 'Typ',
      chooseType: 'Typ wählen',
      agent: 'Agent',
      chooseAgent: 'Agent wählen',
    },
    confirm: {
      deleteTitle: 'Backend löschen',
      deleteMessage: 'Backend „{{name}}“ löschen?',
      delete: 'Löschen',
    },
    msg: {
      backendCreated: 'Backend {{name}} angelegt',
      backendUpdated: 'Backend {{name}} aktualisiert',
      backendDeleted: 'Backend gelöscht',
    },
    types: {
      ipset: 'IP-Set (Linux)',
      nftables: 'nftables',
      allowlist: 'Allowlist',
      haproxy: 'HAProxy',
      knocproxy: 'Knoc-Proxy',
      script: 'Skript',
      fortios: 'Fortinet FortiGate',
      fortimanager: 'FortiManager',
      panos: 'Palo Alto',
      firepower: 'Cisco Firepower',
      sophosutm: 'Sophos UTM',
      sophossfos: 'Sophos SFOS',
      aws: 'Amazon AWS',
      azure: 'Azure NSG',
    },
    fields: {
      ipset: { ManagedRule: 'Offene Verbindungen beenden' },
      nftables: { Family: 'Familie', Table: 'Tabelle', ManagedRule: 'Offene Verbindungen beenden' },
      allowlist: {},
      haproxy: socket,
      knocproxy: socket,
      script: { Command: 'Befehl', WebhookSecret: 'Webhook-Geheimnis', EnvVars: 'Umgebungsvariablen' },
      fortios: {
        Url: 'URL',
        Insecure: insecure,
        Bearer: 'API-Token',
        Prefix: 'Präfix der Adressobjekte',
        VDOM: 'VDOM',
      },
      fortimanager: apiKeyLogin,
      panos: {
        ...apiKeyLogin,
        VSys: 'Virtuelles System (VSys)',
        DeviceGroup: 'Gerätegruppe (Panorama)',
        MapUser: 'Benutzer zuordnen (User-ID)',
      },
      firepower: { ...login, Domain: 'Domäne', Deploy: 'Bereitstellung (Netzwerkgruppen)' },
      sophosutm: apiKeyLogin,
      sophossfos: login,
      aws: { AccessKeyId: 'Zugriffsschlüssel-ID', SecretAccessKey: 'Geheimer Zugriffsschlüssel', Region: 'Region' },
      azure: {
        ClientId: 'Client-ID',
        ClientSecret: 'Client-Geheimnis',
        TenantId: 'Mandanten-ID',
        NoCache: 'Zugriffstoken nicht zwischenspeichern',
      },
    },
    aclFields: {
      ipset: { V4SetName: 'IPv4-Set', V6SetName: 'IPv6-Set' },
      nftables: { V4SetName: 'IPv4-Set', V6SetName: 'IPv6-Set' },
      allowlist: {},
      haproxy: { ID: 'HAProxy-ACL-ID' },
      knocproxy: { Name: 'ACL-Name' },
      script: { Name: 'ACL-Name', EnvVars: 'Umgebungsvariablen' },
      fortios: { Name: 'Name der Adressgruppe' },
      fortimanager: { Name: 'Name der Adressgruppe' },
      panos: {
        GroupName: 'Name der Adressgruppe',
        EDLName: 'Name der externen dynamischen Liste',
        MapUser: 'Benutzer zuordnen (User-ID)',
        SerialNumber: 'Seriennummer der Firewall (Panorama)',
      },
      firepower: { GroupUUID: 'UUID der Netzwerkgruppe' },
      sophosutm: { GroupReference: 'Referenz der Netzwerkgruppe' },
      sophossfos: { GroupName: 'IPv4-Hostgruppe', GroupNameV6: 'IPv6-Hostgruppe' },
      azure: {
        NsgDirection: 'Richtung',
        NsgName: 'Netzwerksicherheitsgruppe',
        NsgPort: port,
        ResourceGroup: 'Ressourcengruppe',
      },
      aws: { SecurityGroupId: 'Sicherheitsgruppen-ID', Port: port },
    },
    options: {
      unix: 'Unix-Socket',
      tcp: 'TCP',
      Inbound: 'Eingehend',
      Outbound: 'Ausgehend',
      automatic: 'Automatisch: Geräte mit Posterns Änderung bereitstellen (dort wartende andere Änderungen gehen mit)',
      onlyWhenOnlyPostern: 'Nur wenn jede auf dem Gerät wartende Änderung von Postern stammt',
      manual: 'Nie: ein Administrator stellt bereit',
      inet: 'inet (IPv4 und IPv6)',
      ip: 'ip (nur IPv4)',
      ip6: 'ip6 (nur IPv6)',
    },
    descriptions: {
      scriptCommand:
        'Ein Programm im Skriptverzeichnis des Agenten oder ein Webhook: eine https-URL, an die der Agent jede Freigabe sendet',
      webhookSecret:
        'Nur für einen Webhook: mindestens 16 Zeichen; jeder Aufruf wird damit signiert (Header X-Postern-Signature)',
      firepowerDomain:
        'Name (z. B. Global/Branch) oder UUID der FMC-Domäne; leer für die Standarddomäne des API-Benutzers',
      firepowerDeploy:
        'Netzwerkgruppen brauchen eine Bereitstellung; sie überträgt auch jede andere auf dem Gerät wartende Änderung. Dynamische Objekte brauchen keine.',
      nftablesTable:
        'Die Tabelle mit den Sets der Knocs. Der Agent legt weder die Tabelle noch ihre Sets an: Legen Sie sie mit flags timeout an',
      awsHostCredentials:
        'Lassen Sie beide Schlüssel leer, um die AWS-Anmeldedaten des Agent-Hosts zu verwenden (Instanzrolle, Umgebung oder gemeinsame Anmeldedatei)',
    },
    secretKept: 'Leer lassen, um den gespeicherten Wert zu behalten',
    chooseIpset: 'Ein vom Agenten gemeldetes Set wählen',
    noIpsets: 'Der Agent hat keine Sets dieser Adressfamilie gemeldet',
    nftables: {
      chooseSet: 'Ein vom Agenten in dieser Tabelle gemeldetes Set wählen',
      noSets: 'Der Agent hat in dieser Tabelle keine Sets dieses Adresstyps gemeldet',
      noTimeout: 'ohne Timeout-Flag: Postern braucht flags timeout',
      table: 'Tabelle',
      chooseTable: 'Eine Tabelle wählen, in der der Agent Sets gemeldet hat',
      noTables: 'Der Agent hat keine nftables-Sets gemeldet',
      tableHint: 'Der Knoc fügt Adressen den Sets dieser Tabelle hinzu; Ihre eigenen Regeln darin prüfen sie',
      tableOption: '{{table}} ({{family}})',
    },
    managedRule: {
      switch: 'Offene Verbindungen beenden, wenn der Zugriff endet',
      help: 'Aus: Postern ändert nur die Sets; Ihre eigenen Firewall-Regeln entscheiden, was sie erlauben, und eine schon offene Verbindung bleibt nach dem Ende des Zugriffs offen. Ein: Der Agent verwaltet zusätzlich eine Filterregel für die Ports unten, sodass eine Verbindung endet, sobald ihre Adresse das Set des Knocs verlässt.',
      owned:
        'Der Agent verwaltet dann diese Regel in der Chain: Sie verwirft Pakete an diese TCP-Ports von Adressen, die nicht in den Sets des Knocs sind, und steht vor dem Accept der Chain für bestehende Verbindungen; beim Widerruf löscht der Agent die Connection-Tracking-Einträge (conntrack) der Adresse für diese Ports. Ändern Sie die Regel nicht selbst.',
      chain: 'Chain',
      chainHint: {
        ipset: 'Eine iptables-Chain der Filter-Tabelle, etwa INPUT oder FORWARD, oder eine eigene',
        nftables: 'Eine Chain der Tabelle des Backends (die mit dem Hook, etwa input)',
      },
      ports: 'TCP-Ports (1 bis {{max}})',
      port: 'Port {{number}}',
      removePort: 'Port {{number}} entfernen',
      addPort: 'Port hinzufügen',
      off: 'Aus',
      summary: 'Chain {{chain}}, TCP-Ports {{ports}}',
    },
    envVars: {
      none: 'Keine Variablen',
      add: 'Variable hinzufügen',
      remove: 'Variable {{number}} entfernen',
      name: 'Name der Variablen {{number}}',
      value: 'Wert der Variablen {{number}}',
      sensitive: 'Vertraulich',
      sensitiveOf: 'Variable {{number}} ist vertraulich',
    },
    credentials: {
      title: 'Zugangsdaten erneut eingeben',
      continue: 'Speichern',
    },
    validation: {
      required: 'Dieses Feld ist erforderlich',
      port: 'Einen Port von 1 bis 65535 eingeben',
      controlCharacters: 'Darf keine Steuerzeichen enthalten',
    },
  },
};

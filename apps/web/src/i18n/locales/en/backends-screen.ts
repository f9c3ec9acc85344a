/** English: the admin console's Backends screen and the backend and knoc config fields every knoc form shares. */

const insecure = 'Skip TLS certificate verification';
const hostname = 'Hostname';
const apiKey = 'API key';
const socket = { Protocol: 'Protocol', Address: 'Address' };
const login = { Hostname: hostname, Insecure: insecure, Username: 'User name', Password: 'Password' };
const apiKeyLogin = { Hostname: hostname, Insecure: insecure, ApiKey: apiKey };
const port = 'Port';

export const backendsScreen = {
  backendsScreen: {
    tableLabel: 'Backends',
    empty: 'No backends yet',
    noAgent: 'None',
    columns: {
      name: 'Name',
      type: 'Type',
      agent: 'Agent',
      modified: 'Last modified',
      actions: 'Actions',
    },
    buttons: {
      create: 'Create backend',
    },
    actions: {
      edit: 'Edit {{name}}',
      delete: 'Delete {{name}}',
    },
    form: {
      createTitle: 'Create backend',
      editTitle: 'Edit backend {{name}}',
      name: 'Name',
      type: 'Type',
      chooseType: 'Choose a type',
      agent: 'Agent',
      chooseAgent: 'Choose an agent',
    },
    confirm: {
      deleteTitle: 'Delete backend',
      deleteMessage: 'Delete backend "{{name}}"?',
      delete: 'Delete',
    },
    msg: {
      backendCreated: 'Backend {{name}} created',
      backendUpdated: 'Backend {{name}} updated',
      backendDeleted: 'Backend deleted',
    },
    types: {
      ipset: 'IP set (Linux)',
      nftables: 'nftables',
      allowlist: 'Allowlist',
      haproxy: 'HAProxy',
      knocproxy: 'Knoc proxy',
      script: 'Script',
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
      ipset: { ManagedRule: 'End live connections' },
      nftables: { Family: 'Family', Table: 'Table', ManagedRule: 'End live connections' },
      allowlist: {},
      haproxy: socket,
      knocproxy: socket,
      script: { Command: 'Command', WebhookSecret: 'Webhook secret', EnvVars: 'Environment variables' },
      fortios: {
        Url: 'URL',
        Insecure: insecure,
        Bearer: 'API token',
        Prefix: 'Address object prefix',
        VDOM: 'VDOM',
      },
      fortimanager: apiKeyLogin,
      panos: {
        ...apiKeyLogin,
        VSys: 'Virtual system (VSys)',
        DeviceGroup: 'Device group (Panorama)',
        MapUser: 'Map users (User-ID)',
      },
      firepower: { ...login, Domain: 'Domain', Deploy: 'Deployment (network groups)' },
      sophosutm: apiKeyLogin,
      sophossfos: login,
      aws: { AccessKeyId: 'Access key ID', SecretAccessKey: 'Secret access key', Region: 'Region' },
      azure: {
        ClientId: 'Client ID',
        ClientSecret: 'Client secret',
        TenantId: 'Tenant ID',
        NoCache: 'Do not cache the access token',
      },
    },
    aclFields: {
      ipset: { V4SetName: 'IPv4 set', V6SetName: 'IPv6 set' },
      nftables: { V4SetName: 'IPv4 set', V6SetName: 'IPv6 set' },
      allowlist: {},
      haproxy: { ID: 'HAProxy ACL ID' },
      knocproxy: { Name: 'ACL name' },
      script: { Name: 'ACL name', EnvVars: 'Environment variables' },
      fortios: { Name: 'Address group name' },
      fortimanager: { Name: 'Address group name' },
      panos: {
        GroupName: 'Address group name',
        EDLName: 'External dynamic list name',
        MapUser: 'Map users (User-ID)',
        SerialNumber: 'Firewall serial number (Panorama)',
      },
      firepower: { GroupUUID: 'Network group UUID' },
      sophosutm: { GroupReference: 'Network group reference' },
      sophossfos: { GroupName: 'IPv4 host group', GroupNameV6: 'IPv6 host group' },
      azure: {
        NsgDirection: 'Direction',
        NsgName: 'Network security group',
        NsgPort: port,
        ResourceGroup: 'Resource group',
      },
      aws: { SecurityGroupId: 'Security group ID', Port: port },
    },
    options: {
      unix: 'Unix socket',
      tcp: 'TCP',
      Inbound: 'Inbound',
      Outbound: 'Outbound',
      automatic: "Automatic: deploy the devices with Postern's change (other changes waiting there go along)",
      onlyWhenOnlyPostern: "Only when every change waiting on the device is Postern's",
      manual: 'Never: an admin deploys',
      inet: 'inet (IPv4 and IPv6)',
      ip: 'ip (IPv4 only)',
      ip6: 'ip6 (IPv6 only)',
    },
    descriptions: {
      scriptCommand:
        "A program in the agent's scripts directory, or a webhook: an https URL the agent posts each grant to",
      webhookSecret:
        'For a webhook only: at least 16 characters; each call is signed with it (X-Postern-Signature header)',
      firepowerDomain: "The FMC domain's name (e.g. Global/Branch) or UUID; empty for the API user's default domain",
      firepowerDeploy:
        'Network groups need a deployment; a deployment also pushes every other change waiting on the device. Dynamic objects need none.',
      nftablesTable:
        "The table holding the knocs' sets. The agent creates neither the table nor its sets: create them with flags timeout",
      awsHostCredentials:
        "Leave both keys empty to use the agent host's AWS credentials (instance role, environment or shared credentials file)",
    },
    secretKept: 'Leave empty to keep the stored value',
    chooseIpset: 'Choose a set the agent reported',
    noIpsets: 'The agent reported no sets of this family',
    nftables: {
      chooseSet: 'Choose a set the agent reported in this table',
      noSets: 'The agent reported no sets of this address type in this table',
      noTimeout: 'no timeout flag: Postern needs flags timeout',
      table: 'Table',
      chooseTable: 'Choose a table the agent reported sets in',
      noTables: 'The agent reported no nftables sets',
      tableHint: 'The knoc adds addresses to sets of this table; your own rules in it match them',
      tableOption: '{{table}} ({{family}})',
    },
    managedRule: {
      switch: 'End live connections when access ends',
      help: "Off: Postern only changes the sets; your own firewall rules decide what they allow, and a connection already open stays open after access ends. On: the agent also owns one filter rule for the ports below, so that a connection ends as soon as its address leaves the knoc's set.",
      owned:
        "The agent then owns this rule in the chain: it drops packets to these TCP ports from addresses not in the knoc's sets, placed before the chain's accept of established connections, and on revoke it deletes the address's connection-tracking (conntrack) entries for these ports. Do not edit the rule yourself.",
      chain: 'Chain',
      chainHint: {
        ipset: 'An iptables chain of the filter table, such as INPUT or FORWARD, or one of your own',
        nftables: 'A chain of the backend’s table (the one with the hook, such as input)',
      },
      ports: 'TCP ports (1 to {{max}})',
      port: 'Port {{number}}',
      removePort: 'Remove port {{number}}',
      addPort: 'Add port',
      off: 'Off',
      summary: 'Chain {{chain}}, TCP ports {{ports}}',
    },
    envVars: {
      none: 'No variables',
      add: 'Add variable',
      remove: 'Remove variable {{number}}',
      name: 'Name of variable {{number}}',
      value: 'Value of variable {{number}}',
      sensitive: 'Sensitive',
      sensitiveOf: 'Variable {{number}} is sensitive',
    },
    credentials: {
      title: 'Re-enter credentials',
      continue: 'Save',
    },
    validation: {
      required: 'This field is required',
      port: 'Enter a port from 1 to 65535',
      controlCharacters: 'Must not contain control characters',
    },
  },
};

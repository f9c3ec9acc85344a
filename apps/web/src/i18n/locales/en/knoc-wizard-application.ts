/** English: the application knoc wizard (/admin/knocs/new/application). */
export const knocWizardApplication = {
  knocWizardApplication: {
    title: 'New application knoc',
    steps: {
      settings: 'Settings',
      options: 'Knoc options',
      apiKey: 'API key',
      agent: 'Agent',
      members: 'Users and groups',
      review: 'Review',
    },
    settings: {
      applicationType: 'Application type',
      applicationTypeDescription: {
        passive: 'The firewall polls a published allowlist (about every 60 seconds).',
        'passive+': 'The firewall reads a published allowlist; an agent tells it to refresh at once.',
        active: 'An agent changes the firewall through its API at once.',
      },
      vendor: 'Vendor',
      vendorFixed: 'Passive+ works with Palo Alto firewalls only.',
      description: 'Description',
      url: 'URL',
      urlDescription: 'The address users open from their dashboard (optional).',
      backendLegend: '{{vendor}} connection',
      aclLegend: '{{vendor}} rule',
      invalid: 'Enter a value that is valid here',
      passiveNote: 'The firewall is given the address of the published allowlist once the knoc is created.',
    },
    types: {
      passive: 'Passive',
      'passive+': 'Passive+',
      active: 'Active',
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
    },
    apiKey: {
      option: 'How the firewall reads the allowlist',
      options: {
        new: 'New API key',
        existing: 'Existing API key',
        none: 'No API key',
      },
      name: 'API key name',
      existingTable: 'API keys',
      columns: { select: 'Choose' },
      choose: 'Choose the API key {{name}}',
      noKeys: 'There are no API keys yet',
      existingRequired: 'Choose an API key',
      noneTitle: 'The allowlist is not protected by a key',
      noneWarning:
        'Anyone who knows the address of the allowlist and connects from one of the ranges below can read it. Restrict the ranges to your firewall.',
      restriction: {
        legend: 'Allow-list access IP restriction',
        range: 'Address range {{number}}',
        remove: 'Remove address range {{number}}',
        add: 'Add address range',
      },
    },
    review: {
      application: 'Application',
      apiKey: 'API key',
      newKey: 'A new API key "{{name}}", allowed from {{ranges}}',
      existingKey: 'The existing API key "{{name}}"',
      noKey: 'No API key; readable from {{ranges}}',
    },
    created: {
      title: 'Knoc created',
      description:
        'Configure the firewall with the values below. The API key is shown only once: copy it now and store it safely.',
      apiKey: 'API key',
      apiKeyName: 'API key "{{name}}"',
      allowlistUrl: 'Allowlist URL',
      basicAuth:
        'The firewall fetches the allowlist with basic authentication: user name apiuser, the API key as password.',
      copy: 'Copy {{what}}',
    },
  },
};

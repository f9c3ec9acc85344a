/** English: the admin console's Knocs list, knoc detail dialog and knoc type chooser. */
export const knocsScreen = {
  knocsScreen: {
    tableLabel: 'Knocs',
    buttons: {
      create: 'Create knoc',
    },
    columns: {
      name: 'Name',
      details: 'Details',
      users: 'Users',
      groups: 'Groups',
      agent: 'Agent',
      lastModified: 'Last modified',
    },
    agentNone: {
      allowlist: '— (published allowlist)',
      other: '— (none)',
    },
    lastModifiedBy: 'by {{name}}',
    details: {
      ipset: 'ipset {{sets}}',
      nftables: 'nftables {{family}} {{table}}: {{sets}}',
      allowlist: 'Allowlist',
      allowlistPassivePlus: 'Allowlist, refreshed on the firewall by an agent (passive+)',
      haproxy: 'HAProxy ACL #{{id}}',
      knocproxy: 'Proxy {{name}} on {{address}}',
      script: 'Script {{command}}',
      vendor: '{{vendor}}: {{object}}',
    },
    types: {
      ipset: 'Linux ipset',
      nftables: 'Linux nftables',
      allowlist: 'Allowlist',
      haproxy: 'HAProxy',
      knocproxy: 'Knoc proxy',
      script: 'Script',
    },
    restrictions: {
      none: 'None',
      RFC1918: 'Private addresses (RFC 1918)',
      allowList: 'Only the listed ranges',
      denyList: 'All but the listed ranges',
    },
    test: {
      title: 'Test this knoc',
      intro:
        'Opens the address for one minute through the knoc’s agent, shows what the agent reports from the device, and revokes it again.',
      address: 'Test address',
      addressHint: 'Leave empty to test your own current address.',
      addressPlaceholder: 'Your current address',
      run: 'Test this knoc',
      running: 'Granting, waiting for the agent’s report, revoking…',
      passed: 'The device holds {{ip}}',
      accepted: 'The device took {{ip}}',
      lost: 'The device did not keep {{ip}}',
      readBack: 'The agent’s report',
      held: 'Agent {{agent}} wrote {{ip}} to the device and read it back there ({{when}}).',
      absent:
        'Agent {{agent}} wrote {{ip}} and the device accepted it, but reading the device back did not find it ({{when}}): something on the device removes or overrides Postern’s entries.',
      unreadable:
        'Agent {{agent}} wrote {{ip}} and the device accepted it ({{when}}); the device could not be read back: {{detail}}.',
      unreported:
        'Agent {{agent}} wrote {{ip}} and the device accepted it ({{when}}); this agent’s version does not read the device back (update the agent to see it).',
      revoked: 'Revoked again; the agent took it off the device.',
      notRevoked: 'The removal was sent but not yet confirmed; the entry ends by itself at {{ends}}.',
      revokeError: 'The device refused the removal: {{error}}. The entry ends by itself at {{ends}}.',
      failed: 'The test failed',
      noDevice: 'No agent enforces this knoc, so there is nothing to test.',
    },
    detail: {
      title: 'Knoc',
      settings: 'Settings',
      type: 'Type',
      backend: 'Backend',
      noAgent: 'None',
      url: 'Address',
      category: 'Category',
      clickToGrant: 'Click to grant',
      hideFromUsers: 'Hidden from users',
      autoBrowseUsers: 'Opens for users after granting',
      maximumGrantDuration: 'Maximum grant duration',
      noMaximum: 'None',
      minutes_one: '{{count}} minute',
      minutes_other: '{{count}} minutes',
      ipRestriction: 'IP restriction',
      grantType: 'Grants go to',
      userIp: "The user's address",
      yes: 'Yes',
      no: 'No',
      verify: 'Check that it works',
      childFirewall: 'The firewall the agent refreshes',
      copy: 'Copy: {{what}}',
    },
    verify: {
      allowlist: {
        withKey:
          'Request the allowlist with the API key that reads it, as user name "apiuser" and the key as password. Replace <API key> with the key.',
        byIp: 'Request the allowlist from an address allowed to read it without a key: {{addresses}}.',
        lists:
          'The answer lists the addresses granted now, one a line; grant yourself access and request it again to see yours.',
        passivePlus:
          'After each change an agent tells the firewall to fetch the list again, instead of waiting for its next poll.',
        url: 'Allowlist address',
        request: 'Request',
      },
      haproxy: {
        intro:
          "On the HAProxy host, read ACL #{{id}} through the runtime API socket ({{socket}}): while access lasts, a granted user's address is one of its entries.",
        read: 'Read the ACL',
      },
      knocproxy: {
        intro: 'The agent runs a proxy on {{address}} in front of {{url}}.',
        check:
          'From a granted address the proxy passes requests on to that address; from any other address it answers 403 Forbidden. Use http:// when the agent serves the proxy without TLS.',
        request: 'Request through the proxy',
      },
      ipset: {
        intro:
          "On the host of agent {{agent}}, list the set: while access lasts, a granted user's address is one of its members.",
        list: 'List {{name}}',
      },
      nftables: {
        intro:
          "On the host of agent {{agent}}, list the set in table {{table}} ({{family}}): while access lasts, a granted user's address is one of its elements, with the time until it expires.",
        list: 'List {{name}}',
      },
      script: {
        intro:
          'Agent {{agent}} runs {{command}} from its scripts directory for each grant and revocation, with add or remove, the knoc name and the address as arguments.',
        variables: 'The script gets these environment variables: {{variables}}.',
        invocation: 'How the agent calls it',
      },
      vendor: {
        fortios:
          "On the FortiGate, open the address group {{object}} (Policy & Objects, Addresses): a granted user's address is added to it as an address object.",
        fortimanager:
          "In FortiManager, open the address group {{object}}: a granted user's address is added to it and installed on the managed devices.",
        panos:
          "On the firewall or Panorama, open the address group {{object}} (Objects, Address Groups): a granted user's address is added to it.",
        edl: 'On the firewall, open the External Dynamic List {{object}} (Objects, External Dynamic Lists) and list its entries: they are the addresses the allowlist holds.',
        firepower:
          "In the Firepower management centre, open the network group {{object}}: a granted user's address is added to it.",
        sophosutm: "On the Sophos UTM, open the network group {{object}}: a granted user's address is added to it.",
        sophossfos:
          "On the Sophos firewall, open the IP host group {{object}}: a granted user's address is added to it.",
        azure:
          "In the Azure portal, open the network security group {{object}}: a granted user's address gets a rule of its own.",
        aws: "In the AWS console, open the security group {{object}}: a granted user's address gets an inbound rule.",
        object: 'Object on the device',
      },
    },
    actions: {
      menu: 'Actions for {{name}}',
      edit: 'Edit',
      delete: 'Delete',
    },
    confirm: {
      deleteTitle: 'Delete knoc',
      deleteMessage: 'Delete knoc "{{name}}"? Users lose the access it gives them.',
      delete: 'Delete',
      deleteKeyTitle: 'Delete the API key too?',
      deleteKeyMessage: 'The API key "{{name}}" read only this allowlist. Delete it as well?',
      deleteKey: 'Delete key',
    },
    msg: {
      knocUpdated: 'Knoc updated successfully',
      knocDeleted: 'Knoc deleted',
      apiKeyDeleted: 'API key deleted',
    },
    chooser: {
      intro: 'What should the new knoc protect?',
    },
    tiles: {
      linux: {
        title: 'Linux host/firewall',
        description:
          "An agent adds granted users' addresses to an ipset or nftables set that the host's firewall rules match.",
        action: 'New Linux knoc',
      },
      application: {
        title: 'Application',
        description:
          'A firewall or cloud security group: passive (it polls an allowlist), passive+ (an agent makes it fetch the list) or active (the agent changes it directly).',
        action: 'New application knoc',
      },
      proxy: {
        title: 'Proxy',
        description: "HAProxy or the agent's own proxy lets only granted addresses through to a web application.",
        action: 'New proxy knoc',
      },
      module: {
        title: 'Module',
        description: "A pre-packaged script in the agent's scripts directory, run by a Script knoc.",
        action: 'About modules',
      },
      script: {
        title: 'Script',
        description: 'The agent runs your own program for each grant and revocation.',
        action: 'New script knoc',
      },
      contact: {
        title: 'Contact',
        description: 'Need an integration Postern does not offer yet? Ask for a custom one.',
        action: 'Request an integration',
        noContact: 'The operator of this installation has not configured a contact address.',
        mailSubject: 'Postern: request for a custom integration',
      },
    },
    module: {
      title: 'Modules',
      directory:
        "Modules are pre-packaged scripts. Copy a module into the agent's scripts directory (scripts.directory, POSTERN_AGENT_SCRIPTS_DIR, by default /etc/postern-agent/scripts); the directory must not be writable by group or others.",
      enable: 'The agent runs scripts only when scripts.enabled is set (POSTERN_AGENT_SCRIPTS_ENABLED=true).',
      useInKnoc:
        "Then create a Script knoc on that agent and give the module's file name as the command: the agent runs it for each grant and revocation.",
      variables: "The module gets the knoc's own variables and these:",
    },
  },
};

/** English: the admin console's ACLs screen (knocs on existing backends). */
export const aclsScreen = {
  aclsScreen: {
    tableLabel: 'ACLs',
    empty: 'No ACLs yet',
    columns: {
      description: 'Description',
      details: 'Details',
      modified: 'Last modified',
      actions: 'Actions',
    },
    details: {
      haproxy: 'HAProxy ACL {{id}}',
      allowlist: 'Published allowlist',
      azure: '{{name}}, {{direction}}, port {{port}}',
      aws: '{{group}}, port {{port}}',
    },
    buttons: {
      create: 'Create ACL',
    },
    actions: {
      edit: 'Edit {{name}}',
      delete: 'Delete {{name}}',
    },
    form: {
      createTitle: 'Create ACL',
      editTitle: 'Edit ACL {{name}}',
      description: 'Description',
      backend: 'Backend',
      chooseBackend: 'Choose a backend',
      url: 'URL',
      category: 'Category',
      icon: 'Icon',
      clickToGrant: 'Click to grant',
      hideFromUsers: 'Hide from users',
      maximumGrantDuration: 'Maximum grant duration (minutes)',
      maximumGrantDurationHelp: 'From {{min}} to {{max}} minutes; empty for no limit',
    },
    confirm: {
      deleteTitle: 'Delete ACL',
      deleteMessage: 'Delete ACL "{{name}}"? Its users and groups lose it.',
      delete: 'Delete',
    },
    msg: {
      aclCreated: 'ACL {{name}} created',
      aclUpdated: 'ACL {{name}} updated',
      aclDeleted: 'ACL deleted',
    },
  },
};

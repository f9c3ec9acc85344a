/** English: the admin console's Groups screen. */
export const groupsScreen = {
  groupsScreen: {
    tableLabel: 'Groups',
    columns: {
      name: 'Name',
      type: 'Type',
      description: 'Description',
      knocs: 'Knocs',
      users: 'Users',
      actions: 'Actions',
    },
    types: {
      local: 'Local',
      saml: 'SAML',
      dynamic: 'Dynamic',
    },
    typeHelp: {
      local: 'Admins choose the members.',
      saml: 'Members are the SAML users whose sign-in names this group.',
      dynamic: 'Like SAML; Postern creates these itself when a sign-in names an unknown group.',
    },
    buttons: {
      create: 'Create group',
    },
    actions: {
      edit: 'Edit {{name}}',
      delete: 'Delete {{name}}',
    },
    form: {
      createTitle: 'Create group',
      editTitle: 'Edit group {{name}}',
      name: 'Name',
      description: 'Description',
      type: 'Type',
      knocs: 'Knocs',
      users: 'Users',
      filter: 'Filter {{list}}',
      noKnocs: 'There are no knocs yet',
      noUsers: 'There are no users yet',
      samlUser: 'SAML user: groups come from the identity provider',
      membersFromAssertions: 'The members of SAML and dynamic groups come from SAML sign-ins.',
      listsFailed: 'The knocs or users could not be loaded',
      nameRequired: 'A group needs a name',
      controlCharacters: 'Must not contain control characters',
    },
    confirm: {
      deleteTitle: 'Delete group',
      deleteMessage: 'Delete group "{{name}}"? Its members lose the knocs it gives them.',
      delete: 'Delete',
    },
    msg: {
      groupCreated: 'Group {{name}} created',
      groupUpdated: 'Group {{name}} updated',
      groupDeleted: 'Group deleted',
    },
  },
};

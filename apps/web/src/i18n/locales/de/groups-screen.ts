/** German: the admin console's Groups screen. */
export const groupsScreen = {
  groupsScreen: {
    tableLabel: 'Gruppen',
    columns: {
      name: 'Name',
      type: 'Typ',
      description: 'Beschreibung',
      knocs: 'Knocs',
      users: 'Benutzer',
      actions: 'Aktionen',
    },
    types: {
      local: 'Lokal',
      saml: 'SAML',
      dynamic: 'Dynamisch',
    },
    typeHelp: {
      local: 'Administratoren wählen die Mitglieder.',
      saml: 'Mitglieder sind die SAML-Benutzer, deren Anmeldung diese Gruppe nennt.',
      dynamic: 'Wie SAML; Postern legt diese selbst an, wenn eine Anmeldung eine unbekannte Gruppe nennt.',
    },
    buttons: {
      create: 'Gruppe anlegen',
    },
    actions: {
      edit: '{{name}} bearbeiten',
      delete: '{{name}} löschen',
    },
    form: {
      createTitle: 'Gruppe anlegen',
      editTitle: 'Gruppe {{name}} bearbeiten',
      name: 'Name',
      description: 'Beschreibung',
      type: 'Typ',
      knocs: 'Knocs',
      users: 'Benutzer',
      filter: '{{list}} filtern',
      noKnocs: 'Es gibt noch keine Knocs',
      noUsers: 'Es gibt noch keine Benutzer',
      samlUser: 'SAML-Benutzer: Gruppen kommen vom Identitätsanbieter',
      membersFromAssertions: 'Die Mitglieder von SAML- und dynamischen Gruppen ergeben sich aus SAML-Anmeldungen.',
      listsFailed: 'Die Knocs oder Benutzer konnten nicht geladen werden',
      nameRequired: 'Eine Gruppe braucht einen Namen',
      controlCharacters: 'Darf keine Steuerzeichen enthalten',
    },
    confirm: {
      deleteTitle: 'Gruppe löschen',
      deleteMessage: 'Gruppe „{{name}}“ löschen? Ihre Mitglieder verlieren die Knocs, die sie ihnen gibt.',
      delete: 'Löschen',
    },
    msg: {
      groupCreated: 'Gruppe {{name}} angelegt',
      groupUpdated: 'Gruppe {{name}} gespeichert',
      groupDeleted: 'Gruppe gelöscht',
    },
  },
};

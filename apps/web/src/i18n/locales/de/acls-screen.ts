/** German: the admin console's ACLs screen (knocs on existing backends). */
export const aclsScreen = {
  aclsScreen: {
    tableLabel: 'ACLs',
    empty: 'Noch keine ACLs',
    columns: {
      description: 'Beschreibung',
      details: 'Details',
      modified: 'Zuletzt geändert',
      actions: 'Aktionen',
    },
    details: {
      haproxy: 'HAProxy-ACL {{id}}',
      allowlist: 'Veröffentlichte Allowlist',
      azure: '{{name}}, {{direction}}, Port {{port}}',
      aws: '{{group}}, Port {{port}}',
    },
    buttons: {
      create: 'ACL anlegen',
    },
    actions: {
      edit: '{{name}} bearbeiten',
      delete: '{{name}} löschen',
    },
    form: {
      createTitle: 'ACL anlegen',
      editTitle: 'ACL {{name}} bearbeiten',
      description: 'Beschreibung',
      backend: 'Backend',
      chooseBackend: 'Backend wählen',
      url: 'URL',
      category: 'Kategorie',
      icon: 'Symbol',
      clickToGrant: 'Freigabe per Klick',
      hideFromUsers: 'Vor Benutzern verbergen',
      maximumGrantDuration: 'Maximale Freigabedauer (Minuten)',
      maximumGrantDurationHelp: 'Von {{min}} bis {{max}} Minuten; leer für keine Begrenzung',
    },
    confirm: {
      deleteTitle: 'ACL löschen',
      deleteMessage: 'ACL „{{name}}“ löschen? Ihre Benutzer und Gruppen verlieren sie.',
      delete: 'Löschen',
    },
    msg: {
      aclCreated: 'ACL {{name}} angelegt',
      aclUpdated: 'ACL {{name}} aktualisiert',
      aclDeleted: 'ACL gelöscht',
    },
  },
};

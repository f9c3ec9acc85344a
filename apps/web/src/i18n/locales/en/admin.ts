/** English: the admin console. */
export const admin = {
  adminShell: {
    navigation: 'Admin navigation',
    toggleNavigation: 'Toggle navigation',
    signedInAs: 'Signed in as {{name}}',
    logout: 'Log out',
  },
  adminHome: {
    counters: {
      sessions: 'Active sessions',
      // ACLCount counts knocs: named as the sidebar names them.
      acls: 'Knocs',
      users: 'Users',
    },
    firstRun: {
      title: 'Getting started',
      progress: '{{done}} of {{total}} done',
      done: 'Done',
      todo: 'To do',
      // Said instead of "To do" when the step's link opens a dialog: the admin knows what comes.
      todoOpens: {
        createAgent: 'To do: create an agent',
        installAgent: 'To do: install the agent “{{name}}”',
      },
      allDone: 'Postern is set up: licence, a connected agent, a knoc and a user.',
      steps: {
        licence: 'Install your licence',
        agent: 'Connect an agent',
        knoc: 'Create your first knoc',
        user: 'Add your first user',
      },
    },
    activity: {
      title: 'Recent activity',
      user: 'User',
      date: 'Date',
      action: 'Action',
      empty: 'No recent activity',
    },
  },
  adminSettings: {
    discoverIpTrustUnattested: {
      label: 'Trust addresses the IP discovery URL reports without a signature',
      risk: 'Only for an external IP discovery URL, which cannot sign its answers. While this is on, anyone signed in can have any address of their choice opened on CGNATOpen systems, not only addresses they really use. Postern’s built-in discovery needs no such trust.',
    },
  },
};

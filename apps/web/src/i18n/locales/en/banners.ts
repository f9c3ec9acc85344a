/** English: the admin banner area (every admin page) and the admin home's licence expiry notice. */
export const banners = {
  banners: {
    dismiss: 'Dismiss for this session',
    unlicensed: {
      title: 'Postern is not licensed',
      body: 'Without a valid licence users are not granted access, and knocs cannot be created or changed.',
      action: 'Get a licence',
      install: 'Enter a licence key',
    },
    agentIncompatible: {
      title: 'Agent incompatible with the server version',
      bodyOne:
        'One agent runs a version this server no longer supports: {{names}}. Agents need version {{version}} or newer.',
      body: '{{count}} agents run a version this server no longer supports: {{names}}. Agents need version {{version}} or newer.',
      action: 'Go to agents',
    },
    userLimit: {
      title: 'User limit exceeded',
      grace: 'There are more users than the licence allows. The grace allowance still admits {{remaining}} more.',
      warning:
        'There are {{percent}}% more users than the licence allows. The grace allowance admits only {{remaining}} more: upgrade the licence soon.',
      beyond:
        'There are more users than the licence and its grace allowance permit: users are denied access until the licence is upgraded.',
      usage: 'Licence usage',
      licensedUsage: 'Users within the licence',
      graceUsage: 'Users in the grace allowance',
      licensed: 'Licensed users',
      graceSeats: 'Grace',
      current: 'Current',
      remaining: 'Remaining',
      upgrade: 'Upgrade Licence',
      manageUsers: 'Manage Users',
    },
    serverUpdate: {
      title: {
        low: 'A Postern update is available',
        medium: 'A recommended Postern update is available',
        high: 'An important Postern update is available: please update soon',
        critical: 'A critical Postern update is available: update now',
      },
      body: 'Version {{version}} is available; this server runs version {{current}}.',
      changelog: 'Read the changelog',
    },
    licenceExpiry: {
      title: 'Your licence expires soon',
      bodyOneDay: 'The licence expires in 1 day, on {{date}}. Renew it to keep users’ access.',
      body: 'The licence expires in {{days}} days, on {{date}}. Renew it to keep users’ access.',
    },
  },
};

/** English: the console's view of an account's passkeys (Users and Admins screens). */
export const passkeysConsole = {
  passkeyConsole: {
    detail: 'Passkeys',
    none: 'None',
    count_one: '{{count}} passkey',
    count_other: '{{count}} passkeys',
    unavailable: 'Passkeys are not available for this account',
    own: 'Manage your own passkeys with the Passkeys button at the top',
    remove: 'Remove passkeys',
    removeOf: 'Remove passkeys of {{name}}',
    removeTitle: 'Remove passkeys',
    removeMessage:
      'Remove every passkey of {{name}}? They can no longer sign in with them, and set up a second factor again if they have no other.',
    removed: 'Passkeys removed',
  },
};

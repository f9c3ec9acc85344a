import type { Passkey } from '@postern/protocol';

/* Test data only: passkeys (features/passkeys) and what the browser library answers. */

/** A passkey as GET …/webauthn/credentials lists it: on this device only, used yesterday. */
export function passkeyRecord(overrides: Partial<Passkey> = {}): Passkey {
  return {
    ID: 'pk-1',
    Name: 'Work laptop',
    CreatedAt: new Date(Date.now() - 30 * 86_400_000).toISOString(),
    LastUsedAt: new Date(Date.now() - 86_400_000).toISOString(),
    BackedUp: false,
    Discoverable: true,
    ...overrides,
  };
}

/** Options as the server makes them for navigator.credentials.get(); the fake browser ignores them. */
export const AUTHENTICATION_OPTIONS = { challenge: 'Y2hhbGxlbmdl', rpId: 'localhost', userVerification: 'required' };

/** Options for navigator.credentials.create(). */
export const REGISTRATION_OPTIONS = {
  challenge: 'Y2hhbGxlbmdl',
  rp: { id: 'localhost', name: 'Postern' },
  user: { id: 'dXNlcg', name: 'ada', displayName: 'Ada Lovelace' },
  pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
};

/** What startAuthentication resolves to: an assertion as JSON. */
export const ASSERTION = {
  id: 'Y3JlZA',
  rawId: 'Y3JlZA',
  type: 'public-key' as const,
  response: { clientDataJSON: 'e30', authenticatorData: 'YXV0aA', signature: 'c2ln', userHandle: 'dXNlcg' },
  clientExtensionResults: {},
};

/** What startRegistration resolves to: an attestation as JSON. */
export const ATTESTATION = {
  id: 'Y3JlZA',
  rawId: 'Y3JlZA',
  type: 'public-key' as const,
  response: { clientDataJSON: 'e30', attestationObject: 'YXR0', transports: ['internal'] },
  clientExtensionResults: {},
};

/** What the browser library throws when the person closes the passkey prompt. */
export function promptClosed(): Error {
  const error = new Error('The operation either timed out or was not allowed.');
  error.name = 'NotAllowedError';
  return error;
}

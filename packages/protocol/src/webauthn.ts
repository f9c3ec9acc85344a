import { z } from 'zod';
import { dataEnvelope } from './envelope.js';
import { AdminSessionInfo, UserSessionInfo } from './auth.js';
import { NO_CONTROL_CHARACTERS, NO_CONTROL_CHARACTERS_MESSAGE } from './common.js';

/*
 * Passkeys (WebAuthn) for the accounts whose factors Postern checks (local and LDAP; users and
 * admins): a second factor beside TOTP, and, where
 * the realm's setting allows it, a sign-in of their own (a discoverable passkey with user
 * verification proves possession and the person at once). Every route exists twice: under
 * /api/webauthn/… for users and /api/admin/webauthn/… for admins.
 *
 * The options and responses are WebAuthn's own JSON forms (PublicKeyCredentialCreationOptionsJSON,
 * RegistrationResponseJSON, …, as @simplewebauthn and the browsers' toJSON() write them); the
 * schemas below check their frame and leave the ceremony's checks to the server.
 */

/** How long a ceremony's challenge may be answered (WebAuthn's recommended timeout is 5 minutes). */
export const WEBAUTHN_CEREMONY_MS = 5 * 60_000;
/**
 * How long after a sign-in the session may add or remove passkeys. The sign-in passed every factor
 * the account has, so within this window the person has just proved the current factor; later the
 * routes answer 403 err.recentSignInRequired and the person signs in again.
 */
export const PASSKEY_CHANGE_WINDOW_MINUTES = 10;
/** How many passkeys one account may hold. */
export const MAX_PASSKEYS_PER_ACCOUNT = 20;

/** A passkey's name as its owner calls it ("Work laptop"). */
export const PasskeyName = z.string().trim().min(1).max(64).regex(NO_CONTROL_CHARACTERS, NO_CONTROL_CHARACTERS_MESSAGE);

const Base64Url = z
  .string()
  .max(16_384)
  .regex(/^[A-Za-z0-9_-]*$/, 'base64url');

/** The credential a browser returns from navigator.credentials.create(), as JSON. */
export const RegistrationResponseJson = z.object({
  id: Base64Url,
  rawId: Base64Url,
  type: z.literal('public-key'),
  response: z
    .object({
      clientDataJSON: Base64Url,
      attestationObject: Base64Url,
      transports: z.array(z.string().max(32)).max(10).optional(),
    })
    .passthrough(),
  authenticatorAttachment: z.string().max(32).optional(),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
});
export type RegistrationResponseJson = z.infer<typeof RegistrationResponseJson>;

/** The assertion a browser returns from navigator.credentials.get(), as JSON. */
export const AuthenticationResponseJson = z.object({
  id: Base64Url,
  rawId: Base64Url,
  type: z.literal('public-key'),
  response: z
    .object({
      clientDataJSON: Base64Url,
      authenticatorData: Base64Url,
      signature: Base64Url,
      userHandle: Base64Url.optional(),
    })
    .passthrough(),
  authenticatorAttachment: z.string().max(32).optional(),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
});
export type AuthenticationResponseJson = z.infer<typeof AuthenticationResponseJson>;

/** WebAuthn options as the server made them, handed to the browser unchanged. */
const CeremonyOptions = z.record(z.string(), z.unknown());

/**
 * POST …/webauthn/registration/options: the options for navigator.credentials.create(). Asked by a
 * sign-in waiting to enrol a second factor (stage totp-enrol), or by a recent session adding one.
 * The challenge is kept on the server with the session, for whichever replica the answer reaches.
 */
export const RegistrationOptionsResponse = dataEnvelope(CeremonyOptions);

/** POST …/webauthn/registration/verify */
export const RegistrationVerifyBody = z.object({ Name: PasskeyName, Response: RegistrationResponseJson });
export type RegistrationVerifyBody = z.infer<typeof RegistrationVerifyBody>;

/** A stored passkey as its owner and the console see it (never its key). */
export const Passkey = z.object({
  ID: z.string(),
  Name: z.string(),
  /** ISO 8601. */
  CreatedAt: z.string(),
  LastUsedAt: z.string().nullable(),
  /** The authenticator says the credential is synced (backed up) beyond this device. */
  BackedUp: z.boolean(),
  /** Can sign in without a user name (a discoverable credential). */
  Discoverable: z.boolean(),
});
export type Passkey = z.infer<typeof Passkey>;
export const PasskeyResponse = dataEnvelope(Passkey);
export const PasskeyListResponse = dataEnvelope(z.array(Passkey));

/**
 * What a registration did: `Enrolled` finished a sign-in that had to enrol a second factor (the
 * session cookie is replaced by a full one, as TOTP enrolment does), `Added` added a passkey to a
 * signed-in account.
 */
export const RegistrationVerifyResult = z.object({ Outcome: z.enum(['Enrolled', 'Added']), Passkey });
export type RegistrationVerifyResult = z.infer<typeof RegistrationVerifyResult>;
export const RegistrationVerifyResponse = dataEnvelope(RegistrationVerifyResult);

/**
 * POST …/webauthn/authentication/options: for a sign-in waiting for its second factor (stage totp),
 * the options for navigator.credentials.get() naming the account's passkeys; 409
 * err.noPasskeys when it has none (the page then asks for a TOTP code only).
 */
export const AuthenticationOptionsResponse = dataEnvelope(CeremonyOptions);

/** POST …/webauthn/authentication/verify: the second factor by passkey; answers as /api/otp/verify. */
export const AuthenticationVerifyBody = z.object({ Response: AuthenticationResponseJson });
export type AuthenticationVerifyBody = z.infer<typeof AuthenticationVerifyBody>;
export const AuthenticationVerifyResponse = dataEnvelope(z.object({ Outcome: z.literal('SignedIn') }));

/**
 * POST …/webauthn/passwordless/options (public): options for a discoverable passkey, and the
 * ceremony's ID to send back with the answer; 403 err.passkeySignInDisabled where the realm's
 * setting is off.
 */
export const PasswordlessOptions = z.object({ CeremonyID: z.string(), Options: CeremonyOptions });
export type PasswordlessOptions = z.infer<typeof PasswordlessOptions>;
export const PasswordlessOptionsResponse = dataEnvelope(PasswordlessOptions);

/** POST /api/webauthn/passwordless/verify: signs the passkey's owner in, as POST /api/login does. */
export const PasswordlessVerifyBody = z.object({
  CeremonyID: z.string().max(200),
  Response: AuthenticationResponseJson,
  KioskMode: z.boolean().default(false),
});
export type PasswordlessVerifyBody = z.infer<typeof PasswordlessVerifyBody>;
export const PasswordlessVerifyResponse = dataEnvelope(UserSessionInfo);

/** POST /api/admin/webauthn/passwordless/verify */
export const AdminPasswordlessVerifyBody = PasswordlessVerifyBody.omit({ KioskMode: true });
export type AdminPasswordlessVerifyBody = z.infer<typeof AdminPasswordlessVerifyBody>;
export const AdminPasswordlessVerifyResponse = dataEnvelope(AdminSessionInfo);

/** PUT …/webauthn/credentials/{id}: renames a passkey. */
export const PasskeyRenameBody = z.object({ Name: PasskeyName });
export type PasskeyRenameBody = z.infer<typeof PasskeyRenameBody>;

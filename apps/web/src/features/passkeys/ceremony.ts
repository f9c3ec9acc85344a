import {
  browserSupportsWebAuthn,
  startAuthentication,
  startRegistration,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/browser';
import type { TFunction } from 'i18next';
import { ApiError } from '../../lib/api/api-error';
import { renderError } from '../../lib/api/render-error';

/** WebAuthn's options as the server made them; the browser library reads them. */
export type CeremonyOptions = Record<string, unknown>;

/** Whether this browser can use passkeys at all (an old browser, or a page that is not a secure context, cannot). */
export function passkeysSupported(): boolean {
  return browserSupportsWebAuthn();
}

/**
 * navigator.credentials.get() with the server's options. The server made them with
 * @simplewebauthn/server, whose output is this JSON form; the protocol only checks their frame.
 */
export function runAuthentication(options: CeremonyOptions): Promise<AuthenticationResponseJSON> {
  return startAuthentication({ optionsJSON: options as unknown as PublicKeyCredentialRequestOptionsJSON });
}

/** navigator.credentials.create() with the server's options (see {@link runAuthentication}). */
export function runRegistration(options: CeremonyOptions): Promise<RegistrationResponseJSON> {
  return startRegistration({ optionsJSON: options as unknown as PublicKeyCredentialCreationOptionsJSON });
}

/**
 * Whether the browser's prompt ended without a passkey: the person closed it, it timed out, or no
 * passkey could answer (browsers give all of these one name, NotAllowedError, on purpose, so that a
 * page cannot tell which passkeys exist). None of them is a fault to report.
 */
export function ceremonyCancelled(error: unknown): boolean {
  return error instanceof Error && (error.name === 'NotAllowedError' || error.name === 'AbortError');
}

/** The text for a ceremony that failed in the browser or at the server (not a cancel). */
export function ceremonyFailureText(error: unknown, t: TFunction): string {
  if (error instanceof ApiError) return renderError(error, t);
  // The authenticator holds a credential the server excluded: this device is registered already.
  if (error instanceof Error && error.name === 'InvalidStateError') return t('passkey.alreadyRegistered');
  return t('passkey.failed');
}

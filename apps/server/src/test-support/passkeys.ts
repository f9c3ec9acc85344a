import type { LightMyRequestResponse } from 'fastify';
import type { RegistrationResponseJson } from '@postern/protocol';
import type { TestApp } from './test-app.js';
import { cookieFrom } from './http.js';
import { SoftAuthenticator, type AnswerOptions, type SoftCredential } from './soft-authenticator.js';

/** Whose passkey routes a test calls: users' under /api/webauthn, admins' under /api/admin/webauthn. */
export type Realm = 'user' | 'admin';

const PREFIX: Record<Realm, string> = { user: '/api/webauthn', admin: '/api/admin/webauthn' };
const COOKIE: Record<Realm, string> = { user: 'postern_session', admin: 'postern_admin_session' };

/**
 * The passkey API of one realm as a browser with a soft authenticator drives it: each ceremony's
 * options, the authenticator's answer, the verify. The steps are also callable alone, so a test can
 * spoil the answer between them.
 */
export class PasskeyClient {
  readonly authenticator: SoftAuthenticator;

  constructor(
    private readonly t: Pick<TestApp, 'app'>,
    readonly realm: Realm,
    authenticator?: SoftAuthenticator,
  ) {
    this.authenticator = authenticator ?? new SoftAuthenticator();
  }

  /** A call to one of the realm's passkey routes (`path` after …/webauthn). */
  call(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    cookie?: string,
    payload?: object,
  ): Promise<LightMyRequestResponse> {
    return this.t.app.inject({
      method,
      url: `${PREFIX[this.realm]}${path}`,
      headers: cookie === undefined ? {} : { cookie },
      ...(payload === undefined ? {} : { payload }),
    });
  }

  /** The session cookie a response set for this realm. */
  cookieOf(response: LightMyRequestResponse): string | undefined {
    return cookieFrom(response, COOKIE[this.realm]);
  }

  async options(path: string, cookie?: string): Promise<Record<string, unknown>> {
    const response = await this.call('POST', path, cookie);
    if (response.statusCode !== 200) throw new Error(`${path}: ${response.statusCode} ${response.body}`);
    return response.json<{ data: Record<string, unknown> }>().data;
  }

  /** Registration options, the authenticator's new credential, and the answer to registration/verify. */
  async register(
    cookie: string,
    answer: AnswerOptions & { discoverable?: boolean; name?: string } = {},
  ): Promise<LightMyRequestResponse> {
    const options = await this.options('/registration/options', cookie);
    const response = this.authenticator.register(options, answer);
    return this.verifyRegistration(cookie, response, answer.name);
  }

  verifyRegistration(cookie: string, response: RegistrationResponseJson, name = 'Test key') {
    return this.call('POST', '/registration/verify', cookie, { Name: name, Response: response });
  }

  /** A registered passkey (200 asserted), with the authenticator's credential for it. */
  async givenPasskey(cookie: string, name = 'Test key'): Promise<{ id: string; credential: SoftCredential }> {
    const response = await this.register(cookie, { name });
    if (response.statusCode !== 200) throw new Error(`registration: ${response.statusCode} ${response.body}`);
    const credential = this.authenticator.credentials.at(-1);
    if (credential === undefined) throw new Error('no credential');
    return { id: response.json<{ data: { Passkey: { ID: string } } }>().data.Passkey.ID, credential };
  }

  /** The second factor of a pending sign-in by passkey. */
  async secondFactor(
    cookie: string,
    answer: AnswerOptions & { credential?: SoftCredential } = {},
  ): Promise<LightMyRequestResponse> {
    const options = await this.options('/authentication/options', cookie);
    const response = this.authenticator.assert(options, answer);
    return this.call('POST', '/authentication/verify', cookie, { Response: response });
  }

  /** A passwordless sign-in: options, the authenticator's assertion, the verify. */
  async passwordless(
    answer: AnswerOptions & { credential?: SoftCredential; userHandle?: string | null; kiosk?: boolean } = {},
  ): Promise<LightMyRequestResponse> {
    const { CeremonyID, Options } = (await this.passwordlessOptions()).json<{
      data: { CeremonyID: string; Options: Record<string, unknown> };
    }>().data;
    const response = this.authenticator.assert(Options, answer);
    const kiosk = this.realm === 'user' && answer.kiosk !== undefined ? { KioskMode: answer.kiosk } : {};
    return this.call('POST', '/passwordless/verify', undefined, { CeremonyID, Response: response, ...kiosk });
  }

  passwordlessOptions(): Promise<LightMyRequestResponse> {
    return this.call('POST', '/passwordless/options');
  }
}

import type { SamlRealm } from '../settings/settings.service.js';

/** Where each realm's SAML routes live, and where a browser lands after a failed sign-in. */
export const SAML_PATHS: Record<SamlRealm, { metadata: string; acs: string; login: string; loginPage: string }> = {
  user: {
    metadata: '/api/saml/metadata',
    acs: '/api/saml/acs',
    login: '/api/login/saml',
    loginPage: '/',
  },
  admin: {
    metadata: '/api/admin/saml/metadata',
    acs: '/api/admin/saml/acs',
    login: '/api/admin/login/saml',
    loginPage: '/admin',
  },
};

/** Our side of a realm's SAML trust: the names the IdP knows us by, derived from PublicURL. */
export interface ServiceProviderEndpoints {
  /** The SP entity ID (also the audience we require): the realm's metadata URL. */
  entityId: string;
  /** The assertion consumer service URL: the only Destination and Recipient we accept. */
  acsUrl: string;
}

export function serviceProviderEndpoints(publicUrl: string, realm: SamlRealm): ServiceProviderEndpoints {
  // A trailing slash in the setting must not produce '//api/…', which would never match a Destination.
  const base = publicUrl.trim().replace(/\/+$/, '');
  return { entityId: `${base}${SAML_PATHS[realm].metadata}`, acsUrl: `${base}${SAML_PATHS[realm].acs}` };
}

/** The page a failed or refused SSO attempt lands on, with the error code the login page shows. */
export function loginPageWithError(realm: SamlRealm, code: string): string {
  return `${SAML_PATHS[realm].loginPage}?error=${encodeURIComponent(code)}`;
}

/** Where an admin lands after signing in. */
export const ADMIN_HOME = '/admin/home';

/** The user's landing page after signing in, as the password sign-in would choose it. */
export function userHome(newUserDashboard: boolean): string {
  return newUserDashboard ? '/home/new' : '/home';
}

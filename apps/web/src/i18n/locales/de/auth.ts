import type { MirroredResource } from '../../resource-types';
import type { auth as english } from '../en/auth';

/** German: signing in: the login forms, single sign-on and two-factor authentication. */
export const auth: MirroredResource<typeof english> = {
  login: {
    heading: 'Bei Postern anmelden',
    username: 'Benutzername',
    password: 'Passwort',
    kiosk: 'Dies ist ein öffentlicher Computer',
    kioskHint: 'Ihre Sitzung ist kurz und endet, wenn Sie den Browser schließen.',
    submit: 'Anmelden',
    adminLink: 'Anmeldung für Administratoren',
    errorMessage: 'Fehler: {{message}}',
    usernameRequired: 'Sie müssen einen Benutzernamen angeben',
    passwordRequired: 'Sie müssen ein Passwort angeben',
  },
  sso: {
    signIn: 'Mit SSO anmelden',
    signInWith: 'Mit {{provider}} anmelden',
    signInOidc: 'Mit OpenID Connect anmelden',
    localToggle: 'Mit Benutzername und Passwort anmelden',
  },
  twoFactor: {
    verifyIntro: 'Geben Sie den Code aus Ihrer Authenticator-App ein, um die Anmeldung abzuschließen.',
    onboardIntro:
      'Ihr Konto benötigt einen zweiten Faktor: einen Passkey oder eine Authenticator-App, zum Beispiel auf Ihrem Telefon.',
    codeLabel: 'Authentifizierungscode',
    codeDescription: 'Der 6-stellige Code aus Ihrer Authenticator-App',
    codeRequired: 'Sie müssen einen Code eingeben',
    codeFormat: 'Der Code hat 6 Ziffern',
    verify: 'Bestätigen',
    scanStep: 'Scannen Sie diesen QR-Code mit Ihrer Authenticator-App.',
    qrLabel: 'QR-Code zum Scannen mit Ihrer Authenticator-App',
    openInApp: 'In einer Authenticator-App auf diesem Gerät öffnen',
    secretStep: 'Oder geben Sie diesen Schlüssel in der App ein:',
    secretLabel: 'Geheimer Schlüssel',
    copySecret: 'Schlüssel kopieren',
    copied: 'Kopiert',
    codeStep: 'Geben Sie dann den Code ein, den die App anzeigt.',
    deferEnrolment: 'Beim nächsten Mal erledigen',
    backToLogin: 'Zurück zur Anmeldung',
    retry: 'Erneut versuchen',
    enrolled:
      'Die Zwei-Faktor-Authentifizierung ist eingerichtet. Ab jetzt fragt die Anmeldung nach einem Code aus Ihrer App.',
  },
  adminLogin: {
    heading: 'Postern-Administrationskonsole',
    intro: 'Melden Sie sich mit Ihrem Administratorkonto an.',
    userLink: 'Zurück zur Benutzeranmeldung',
  },
};

import type { AuditActionTexts, ErrorTexts } from '../resource-types';

/** Texts for every server error code (spec §8 wording where the spec gives one). */
const err: ErrorTexts = {
  badRequest: 'Bad request',
  invalidCredentials: 'Invalid credentials',
  invalidSession: 'Invalid session',
  sessionExpired: 'Your session has expired, log in again',
  unauthorised: 'Unauthorised',
  forbiddenOrigin: 'This request came from another site and was refused',
  notFound: 'Not found',
  conflict: 'This conflicts with something that already exists',
  payloadTooLarge: 'The request is too large',
  unsupportedMediaType: 'The request has an unsupported content type',
  tooManyRequests: 'Too many requests, please try again in',
  internalServerError: 'Internal server error',
  storeUnavailable: 'The database is unavailable, please try again shortly',
  failedSettingCookie: 'Failed setting cookie',
  failedToCreateSession: 'Failed to create session',
  loginNotPermitted: 'Login not permitted',
  accountDisabled: 'Your account is disabled contact an admin',
  authenticationFailed: 'Authentication failed',
  totpVerificationRequired: 'Two-factor verification is required',
  totpEnrolmentRequired: 'Two-factor authentication must be set up first',
  alreadyVerified2fa: 'Already verified 2FA',
  userAlreadyVerified: 'User already verified',
  invalidCode: 'Invalid code',
  samlNotConfigured: 'SAML not configured',
  licenceRequired: 'A valid licence is required',
  cannotResetOwn2fa: 'You cannot reset your own 2FA token',
  cannotDisableOwn2fa: 'You cannot disable 2FA on your own account',
  failedToRecordGrants: 'Failed to record grants',
  agentNameExists: 'An agent with that name already exists',
  agentHasBackends: 'Please detach all backends from this agent before deleting it',
  mismatchingIds: 'Mismatching IDs',
};

/** Names of audit actions, as the recent-activity table and the logs show them. */
const auditAction: AuditActionTexts = {
  UserLogin: 'User signed in',
  UserLoginFailed: 'User sign-in failed',
  UserLogout: 'User signed out',
  AdminLogin: 'Admin signed in',
  AdminLoginFailed: 'Admin sign-in failed',
  AdminLogout: 'Admin signed out',
  AdminCreatedAutomatically: 'Admin created automatically',
  AdminCreated: 'Admin created',
  AdminPasswordReset: 'Admin password reset',
};

/** English, the reference language: every other language mirrors these keys. */
export const en = {
  app: {
    name: 'Postern',
    adminName: 'Postern admin',
    loading: 'Loading…',
    documentTitle: {
      user: '{{page}} · Postern',
      admin: '{{page}} · Postern admin',
    },
  },
  route: {
    login: 'Sign in',
    home: 'Home',
    dashboard: 'Dashboard',
    twoFactor: 'Two-factor verification',
    twoFactorOnboard: 'Set up two-factor authentication',
    adminLogin: 'Admin sign in',
    adminTwoFactor: 'Admin two-factor verification',
    adminTwoFactorOnboard: 'Admin two-factor setup',
    adminHome: 'Home',
    agents: 'Agents',
    knocs: 'Knocs',
    knocsNew: 'New knoc',
    knocsNewLinux: 'New Linux knoc',
    knocsNewApplication: 'New application knoc',
    knocsNewProxy: 'New proxy knoc',
    knocsNewScript: 'New script knoc',
    knocUpdate: 'Update knoc',
    backends: 'Backends',
    acls: 'ACLs',
    groups: 'Groups',
    users: 'Users',
    admins: 'Admins',
    logs: 'Logs',
    apiKeys: 'API keys',
    settings: 'Settings',
  },
  colorScheme: {
    change: 'Change colour scheme',
    light: 'Light',
    dark: 'Dark',
    auto: 'Auto',
  },
  form: {
    tooLong: 'This is too long',
  },
  login: {
    heading: 'Sign in to Postern',
    username: 'Username',
    password: 'Password',
    kiosk: 'This is a public computer',
    kioskHint: 'Your session is short and ends when you close the browser.',
    submit: 'Sign in',
    adminLink: 'Administrator sign in',
    errorMessage: 'Error: {{message}}',
    usernameRequired: 'You must specify a username',
    passwordRequired: 'You must specify a password',
  },
  adminLogin: {
    heading: 'Postern admin console',
    intro: 'Sign in with your administrator account.',
    userLink: 'Back to user sign in',
  },
  home: {
    greeting: 'Hello, {{name}}',
    sessionEnds: 'Your session ends {{relative}}.',
    logout: 'Log out',
  },
  placeholder: {
    text: 'This screen arrives in a later release',
  },
  adminShell: {
    navigation: 'Admin navigation',
    toggleNavigation: 'Toggle navigation',
    signedInAs: 'Signed in as {{name}}',
    logout: 'Log out',
  },
  adminHome: {
    counters: {
      sessions: 'Active sessions',
      acls: 'ACLs',
      users: 'Users',
    },
    activity: {
      title: 'Recent activity',
      user: 'User',
      date: 'Date',
      action: 'Action',
      empty: 'No recent activity',
    },
  },
  error: {
    title: 'Error',
    internal: 'An internal server error occurred',
  },
  err,
  audit: {
    action: auditAction,
  },
};

/** The shape every translation of the app has. */
export type Translation = typeof en;

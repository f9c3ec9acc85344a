import { admin } from './en/admin';
import { agentsScreen } from './en/agents-screen';
import { usersScreen } from './en/users-screen';
import { adminsScreen } from './en/admins-screen';
import { groupsScreen } from './en/groups-screen';
import { apiKeysScreen } from './en/apiKeys-screen';
import { backendsScreen } from './en/backends-screen';
import { aclsScreen } from './en/acls-screen';
import { logsScreen } from './en/logs-screen';
import { settingsScreen } from './en/settings-screen';
import { knocsScreen } from './en/knocs-screen';
import { banners } from './en/banners';
import { audit } from './en/audit';
import { knocWizardApplication } from './en/knoc-wizard-application';
import { knocWizard } from './en/knoc-wizard';
import { passkeysConsole } from './en/passkeys-console';

/**
 * English texts only the admin console uses: the `admin` namespace, loaded on demand (a chunk of its
 * own, see `i18n.ts`) so the user portal's first download does not carry them. Components look them
 * up with the usual keys (`t('agentsScreen.create')`): `admin` is i18next's fallback namespace.
 */
export const enAdmin = {
  ...admin,
  ...agentsScreen,
  ...usersScreen,
  ...adminsScreen,
  ...groupsScreen,
  ...apiKeysScreen,
  ...backendsScreen,
  ...aclsScreen,
  ...logsScreen,
  ...settingsScreen,
  ...knocsScreen,
  ...banners,
  ...knocWizardApplication,
  ...knocWizard,
  ...passkeysConsole,
  audit,
};

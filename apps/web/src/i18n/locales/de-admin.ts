import type { MirroredResource } from '../resource-types';
import { admin } from './de/admin';
import { agentsScreen } from './de/agents-screen';
import { usersScreen } from './de/users-screen';
import { adminsScreen } from './de/admins-screen';
import { groupsScreen } from './de/groups-screen';
import { apiKeysScreen } from './de/apiKeys-screen';
import { backendsScreen } from './de/backends-screen';
import { aclsScreen } from './de/acls-screen';
import { logsScreen } from './de/logs-screen';
import { settingsScreen } from './de/settings-screen';
import { knocsScreen } from './de/knocs-screen';
import { banners } from './de/banners';
import { audit } from './de/audit';
import { knocWizardApplication } from './de/knoc-wizard-application';
import { knocWizard } from './de/knoc-wizard';
import { passkeysConsole } from './de/passkeys-console';
import type { enAdmin } from './en-admin';

/** German texts of the admin console, loaded on demand as English's (`en-admin.ts`). */
export const deAdmin: MirroredResource<typeof enAdmin> = {
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

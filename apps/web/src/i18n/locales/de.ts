import type { MirroredResource } from '../resource-types';
import { admin } from './de/admin';
import { agentsScreen } from './de/agents-screen';
import { usersScreen } from './de/users-screen';
import { adminsScreen } from './de/admins-screen';
import { groupsScreen } from './de/groups-screen';
import { apiKeysScreen } from './de/apiKeys-screen';
import { logsScreen } from './de/logs-screen';
import { settingsScreen } from './de/settings-screen';
import { banners } from './de/banners';
import { audit } from './de/audit';
import { auth } from './de/auth';
import { common } from './de/common';
import { err } from './de/errors';
import { portal } from './de/portal';
import type { Translation } from './en';

/**
 * German. Mirrors the English keys exactly (the type and a test both check it); one file per area
 * under `de/`, as for English.
 */
export const de: MirroredResource<Translation> = {
  ...common,
  ...auth,
  ...portal,
  ...admin,
  ...agentsScreen,
  ...usersScreen,
  ...adminsScreen,
  ...groupsScreen,
  ...apiKeysScreen,
  ...logsScreen,
  ...settingsScreen,
  ...banners,
  err,
  audit,
};

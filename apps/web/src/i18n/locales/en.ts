import { admin } from './en/admin';
import { agentsScreen } from './en/agents-screen';
import { usersScreen } from './en/users-screen';
import { adminsScreen } from './en/admins-screen';
import { groupsScreen } from './en/groups-screen';
import { apiKeysScreen } from './en/apiKeys-screen';
import { logsScreen } from './en/logs-screen';
import { settingsScreen } from './en/settings-screen';
import { banners } from './en/banners';
import { audit } from './en/audit';
import { auth } from './en/auth';
import { common } from './en/common';
import { err } from './en/errors';
import { portal } from './en/portal';

/**
 * English, the reference language: every other language mirrors these keys. The texts live in one
 * file per area under `en/`; add a key to the area's file (and the same key under `de/`).
 */
export const en = {
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

/** The shape every translation of the app has. */
export type Translation = typeof en;

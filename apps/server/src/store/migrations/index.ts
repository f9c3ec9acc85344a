import type { Migration } from 'kysely';
import * as identity from './0001-identity.js';
import * as directory from './0002-directory.js';
import * as grants from './0003-grants.js';
import * as grantLookupIndexes from './0004-grant-lookup-indexes.js';
import * as agentKeys from './0005-agent-keys.js';
import * as signInCeilingAndSessionBounds from './0006-sign-in-ceiling-and-session-bounds.js';
import * as forgetUnattestedSessionAddresses from './0007-forget-unattested-session-addresses.js';
import * as secondFactorFailures from './0008-second-factor-failures.js';
import * as storeMeta from './0009-store-meta.js';
import * as agentSealingKeys from './0010-agent-sealing-keys.js';
import * as cluster from './0012-cluster.js';
import * as deviceCookies from './0013-device-cookies.js';
import * as writeProbe from './0015-write-probe.js';
import * as auditParties from './0016-audit-parties.js';
import * as accountLanguage from './0017-account-language.js';
import * as grantReadBack from './0018-grant-read-back.js';
import * as accountProviders from './0019-account-providers.js';
import * as passkeys from './0020-passkeys.js';

/**
 * Every migration, in order. Append only: a released migration is never edited, because stores in
 * the field have already run it. Names sort in the order they must run.
 */
export const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0001-identity': identity,
  '0002-directory': directory,
  '0003-grants': grants,
  '0004-grant-lookup-indexes': grantLookupIndexes,
  '0005-agent-keys': agentKeys,
  '0006-sign-in-ceiling-and-session-bounds': signInCeilingAndSessionBounds,
  '0007-forget-unattested-session-addresses': forgetUnattestedSessionAddresses,
  '0008-second-factor-failures': secondFactorFailures,
  '0009-store-meta': storeMeta,
  '0010-agent-sealing-keys': agentSealingKeys,
  '0012-cluster': cluster,
  '0013-device-cookies': deviceCookies,
  '0015-write-probe': writeProbe,
  '0016-audit-parties': auditParties,
  '0017-account-language': accountLanguage,
  '0018-grant-read-back': grantReadBack,
  '0019-account-providers': accountProviders,
  '0020-passkeys': passkeys,
};

export const MIGRATION_NAMES: readonly string[] = Object.keys(MIGRATIONS);

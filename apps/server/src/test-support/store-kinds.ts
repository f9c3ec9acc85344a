import type { TestStoreKind } from './test-app.js';

/**
 * Which server test files run on PostgreSQL as well as SQLite: the rule (test-support/README.md,
 * "Store kinds"), kept here in one place and enforced by store-kinds-rule.test.ts.
 *
 * Every server test runs on SQLite. A file runs on PostgreSQL too (by calling bothStores()) when the
 * store is what it tests:
 * - by its place: the store itself (`src/store/`, migrations included), the cluster (`src/cluster/`),
 *   and repositories (`*.repo.test.ts`);
 * - or because BOTH_STORES_FILES below names it, with the reason.
 * Every feature (a folder under `src/`) whose code reads or writes the store has a both-stores
 * file, and at most one of them is its smoke file.
 */
export type BothStoresReason =
  /** The feature's one smoke file: its main paths once on PostgreSQL. */
  | 'smoke'
  /** Racing requests, transactions or locks, which PostgreSQL's pool and isolation serve differently. */
  | 'concurrency'
  /** Counters the throttles update under concurrency. */
  | 'throttling'
  /** What the store itself does: its columns' types and ranges, the test infrastructure's reset. */
  | 'store';

/** The places (paths under apps/server/) whose test files may run on both stores, whatever they test. */
export const BOTH_STORES_PLACES: readonly RegExp[] = [/^src\/store\//, /^src\/cluster\//, /\.repo\.test\.ts$/];

/** The other test files (paths under apps/server/) that run on both stores, and why. */
export const BOTH_STORES_FILES: Readonly<Record<string, BothStoresReason>> = {
  'src/account/language.api.test.ts': 'smoke',
  'src/admins/admins.api.test.ts': 'smoke',
  'src/agent-hub/agent-enrolment.api.test.ts': 'smoke',
  'src/agent-hub/disconnect-recorder.api.test.ts': 'concurrency',
  'src/agent-hub/entry-ttl.api.test.ts': 'store',
  'src/grants/dual-stack.api.test.ts': 'store',
  'src/ip-discovery/dual-stack-discovery.api.test.ts': 'smoke',
  'src/agents/agents.api.test.ts': 'smoke',
  'src/allowlists/allowlists.api.test.ts': 'smoke',
  'src/apikeys/apikeys.api.test.ts': 'smoke',
  'src/audit/logs.api.test.ts': 'smoke',
  'src/auth/auth.api.test.ts': 'smoke',
  'src/auth/sign-in-throttle.api.test.ts': 'throttling',
  'src/auth/throttle.test.ts': 'throttling',
  'src/backends/backends.api.test.ts': 'smoke',
  'src/grants/grants.api.test.ts': 'smoke',
  'src/groups/groups.service.test.ts': 'smoke',
  'src/health/health.api.test.ts': 'smoke',
  'src/health/clock-watch.api.test.ts': 'store',
  'src/health/full-store.api.test.ts': 'store',
  'src/key-check/store-secret-key.test.ts': 'smoke',
  'src/knocs/knocs.api.test.ts': 'smoke',
  'src/licence/licence.test.ts': 'smoke',
  'src/metrics/metrics.api.test.ts': 'smoke',
  'src/oidc/oidc-sign-in.api.test.ts': 'smoke',
  'src/oidc/oidc-replicas.api.test.ts': 'concurrency',
  'src/saml/saml-store.test.ts': 'smoke',
  'src/secrets/unreadable-secrets.api.test.ts': 'smoke',
  'src/sessions/sessions.api.test.ts': 'smoke',
  'src/sessions/second-factor-throttle.test.ts': 'throttling',
  'src/settings/settings.test.ts': 'smoke',
  'src/status/status.api.test.ts': 'smoke',
  'src/users/users.api.test.ts': 'smoke',
  'src/webauthn/passkey-replicas.api.test.ts': 'concurrency',
  'src/webauthn/passkeys.api.test.ts': 'smoke',
  'src/users/user-duration.api.test.ts': 'store',
  'src/shared-state.api.test.ts': 'concurrency',
  'src/server-shutdown.test.ts': 'concurrency',
  'src/test-support/use-test-app.test.ts': 'store',
};

/**
 * The store kinds of a file the rule lets run on both: SQLite, and PostgreSQL when
 * POSTERN_TEST_DATABASE_URL names a server (CI sets it). Every other file names 'sqlite' itself.
 *
 *     describe.each(bothStores())('users API (%s)', (kind) => { const t = useTestApp(kind); … });
 */
export function bothStores(): TestStoreKind[] {
  return process.env.POSTERN_TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
}

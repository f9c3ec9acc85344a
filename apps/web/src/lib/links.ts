import { AGENT_DOCS_PATH, type AdminStatus } from '@postern/protocol';

/**
 * Every link the console offers out of itself, in one place. Postern links only to what its own
 * server serves, or to pages the operator configured: never to a site the project does not own.
 */

/** The agent documentation: docs/agents.md of this release, served by the Postern server itself. */
export const AGENT_DOCS_URL = AGENT_DOCS_PATH;

/**
 * The documentation of a capability group in the capabilities dialog. The agent documentation covers
 * every group in its "Capabilities" section (served as plain text, so without anchors to jump to).
 */
export const CAPABILITY_DOCS_URL = AGENT_DOCS_URL;

/** The licence dialog's and unlicensed banner's links; null where the operator configured none. */
export interface LicenceLinks {
  /** Help with an installation or a licence (POSTERN_SUPPORT_URL). */
  support: string | null;
  /** Buying, renewing or upgrading a licence (POSTERN_LICENSING_URL). */
  licensing: string | null;
}

/** The licence links the server reports in the admin status; none while it has not answered. */
export function licenceLinks(status: Pick<AdminStatus, 'SupportUrl' | 'LicensingUrl'> | undefined): LicenceLinks {
  return { support: status?.SupportUrl ?? null, licensing: status?.LicensingUrl ?? null };
}

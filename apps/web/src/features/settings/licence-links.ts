/**
 * Where the licence dialog sends an administrator for help and for licences (spec §2 Settings:
 * "support and licensing portal links"). Kept in one place so a rebrand changes one file.
 */
export const LICENCE_LINKS = {
  /** Help with an installation or a licence. */
  support: 'https://postern.dev/support',
  /** Buying, renewing or upgrading a licence. */
  licensingPortal: 'https://postern.dev/licensing',
} as const;

import type { LicensingSummary } from '@postern/protocol';
import type { AppContext } from '../app-context.js';

/**
 * The installation's licence state. Licence keys (Ed25519-signed, verified offline) arrive with the
 * licence feature; until one is installed the installation is unlicensed, which is what this says.
 */
export function currentLicensing(_ctx: AppContext): Promise<LicensingSummary> {
  return Promise.resolve({
    Licensed: false,
    Expires: null,
    UserLimit: 0,
    UserLimitOverage: 0,
    UserLimitOveragePercentage: 0,
    SessionLimit: 0,
  });
}

import type { AppContext } from '../app-context.js';
import { writeSetting } from '../settings/settings.js';
import { generateLicenceKeyPair, issueLicence, publicKeyBase64 } from '../licence/licence-format.js';

const signer = generateLicenceKeyPair();

/** Pass as `config.licencePublicKeys` to createTestApp so `givenLicence` is trusted. */
export const TEST_LICENCE_KEYS = [Buffer.from(publicKeyBase64(signer.publicKey), 'base64')];

/** Installs a valid licence (100 users, 10 sessions each) signed by the test key. */
export async function givenLicence(ctx: AppContext): Promise<void> {
  const now = ctx.clock.now();
  await writeSetting(ctx.db, 'License', testLicenceText(now), now);
}

/** The text of givenLicence's licence, valid at `now`. */
export function testLicenceText(now: number): string {
  return issueLicence(
    {
      ID: 'lic-test-grants',
      Licensee: 'Test',
      UserLimit: 100,
      UserLimitOveragePercentage: 0,
      SessionLimit: 10,
      MaxMachines: 10,
      IssuedAt: new Date(now - 86_400_000).toISOString(),
      Expires: new Date(now + 365 * 86_400_000).toISOString(),
    },
    signer.privateKey,
  );
}

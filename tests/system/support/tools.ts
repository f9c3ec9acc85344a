import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Null when every command exists (as /usr/bin/<name>), else what is missing and its Debian package. */
export function missingCommands(commands: Record<string, string>): string | null {
  const missing = Object.entries(commands).filter(([command]) => !existsSync(`/usr/bin/${command}`));
  if (missing.length === 0) return null;
  return missing.map(([command, pkg]) => `${command} (apt-get install ${pkg})`).join(', ');
}

/** Decodes the QR code in a PNG with zbar, the way a phone's camera would. */
export function decodeQrCode(pngPath: string): string {
  // zbar complains on stderr that there is no D-Bus in a container; that is noise, not failure.
  return execFileSync('zbarimg', ['--quiet', '--raw', pngPath], { stdio: ['ignore', 'pipe', 'ignore'] })
    .toString()
    .trim();
}

/** The TOTP code for a base32 secret, computed by oathtool, independently of Postern. */
export function oathtoolCode(secret: string, at: Date): string {
  return execFileSync('oathtool', ['--totp', '--base32', `--now=${at.toISOString()}`, secret])
    .toString()
    .trim();
}
